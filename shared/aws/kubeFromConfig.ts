// Which Kubernetes access a function uses, from its configuration: EKS tokens signed with the
// function's IAM role when AICR_EKS_* are set, otherwise an explicit kubeconfig and context.
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { ConfigError, type Config } from './environment.ts';
import { eksKube } from '../kube/eks.ts';
import { kubeFromKubeconfig } from '../kube/fromKubeconfig.ts';
import type { KubePort } from '../kube/port.ts';

export function kubeFromConfig(config: Config): KubePort {
  const { AICR_EKS_CLUSTER_NAME: name, AICR_EKS_ENDPOINT: endpoint, AICR_EKS_CA_DATA: caData } = config;
  if (name || endpoint || caData) {
    if (!name || !endpoint || !caData) {
      throw new ConfigError(
        'settings AICR_EKS_CLUSTER_NAME, AICR_EKS_ENDPOINT and AICR_EKS_CA_DATA go together: set all three',
      );
    }
    const credentials = defaultProvider();
    return eksKube({ clusterName: name, endpoint, caData, region: config.AWS_REGION }, () => credentials());
  }
  if (config.AICR_KUBECONFIG && config.AICR_KUBE_CONTEXT)
    return kubeFromKubeconfig(config.AICR_KUBECONFIG, config.AICR_KUBE_CONTEXT);
  throw new ConfigError(
    'no cluster configured: set AICR_EKS_CLUSTER_NAME, AICR_EKS_ENDPOINT and AICR_EKS_CA_DATA (EKS), ' +
      'or AICR_KUBECONFIG and AICR_KUBE_CONTEXT',
  );
}
