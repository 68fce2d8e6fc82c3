// The clusters one deployment serves (ADR 0019): its own, named by its EKS or kubeconfig
// settings, and the further clusters of a fleet, each reached with its own connection, made
// once per function container when first needed.
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { Config } from './environment.ts';
import { describeEksCluster } from '../kube/eksDescribe.ts';
import { eksKube } from '../kube/eks.ts';
import { kubeFromKubeconfig } from '../kube/fromKubeconfig.ts';
import type { KubePort } from '../kube/port.ts';
import { kubeFromConfig } from './kubeFromConfig.ts';

export interface ClusterSet {
  /** The deployment's own cluster: work that names no cluster is for it. */
  readonly primary: KubePort;
  /** The further clusters, by name, in the order configured. */
  readonly fleet: readonly string[];
  /** A further cluster's connection; undefined for a name this deployment does not serve. */
  kube(name: string): Promise<KubePort | undefined>;
}

export function clustersFromConfig(config: Config, env: NodeJS.ProcessEnv = process.env): ClusterSet {
  const primary = kubeFromConfig(config);
  const fleet = config.AICR_FLEET_CLUSTERS;
  const made = new Map<string, Promise<KubePort>>();
  // One credential chain for every further cluster: it caches the role's credentials.
  const credentials = defaultProvider();
  const connect = (name: string): Promise<KubePort> => {
    if (config.AICR_EKS_CLUSTER_NAME === undefined && config.AICR_KUBECONFIG)
      return Promise.resolve(kubeFromKubeconfig(config.AICR_KUBECONFIG, name));
    const apiUrl = env['AWS_ENDPOINT_URL_EKS'] ?? env['AWS_ENDPOINT_URL'];
    return describeEksCluster(name, {
      region: config.AWS_REGION,
      credentials: () => credentials(),
      ...(apiUrl ? { apiUrl } : {}),
    }).then((info) => eksKube({ clusterName: name, region: config.AWS_REGION, ...info }, () => credentials()));
  };
  return {
    primary,
    fleet,
    kube: (name) => {
      if (!fleet.includes(name)) return Promise.resolve(undefined);
      let p = made.get(name);
      if (!p) {
        // A failed lookup is not kept: the next message tries again.
        p = connect(name).catch((err: unknown) => {
          made.delete(name);
          throw err;
        });
        made.set(name, p);
      }
      return p;
    },
  };
}
