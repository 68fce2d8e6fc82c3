// An Application as the rollout step writes one for a runtime, for the attack suites to change
// one field at a time: owned (runtime UID and managed-by label), in the configured AppProject,
// deploying to a namespace harness/chart-values.yaml lets releases into (ns-*).
import { ANNOTATION, ARGOCD, LABEL, MANAGED_BY_VALUE, NAMESPACES } from '../../shared/api/constants.ts';
import { testEnv } from '../../harness/env.ts';

export interface AttackApplication {
  /** The runtime UID it carries; '' for none. */
  readonly uid: string;
  readonly project?: string;
  readonly managed?: boolean;
  readonly finalizer?: boolean;
  readonly deleteRollout?: string;
  readonly destination?: Record<string, string>;
}

export function attackApplication(name: string, opts: AttackApplication): Record<string, unknown> {
  const annotations: Record<string, string> = {};
  if (opts.uid !== '') annotations[ANNOTATION.runtimeUID] = opts.uid;
  if (opts.deleteRollout) annotations[ANNOTATION.deleteRollout] = opts.deleteRollout;
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name,
      namespace: NAMESPACES.argocd,
      annotations,
      ...(opts.managed === false ? {} : { labels: { [LABEL.managedBy]: MANAGED_BY_VALUE } }),
      ...(opts.finalizer ? { finalizers: [ARGOCD.resourcesFinalizer] } : {}),
    },
    spec: {
      project: opts.project ?? ARGOCD.project,
      source: { repoURL: `${testEnv().TESTENV_REGISTRY}/aicr`, chart: 'sec-chart', targetRevision: '1.0.0' },
      destination: opts.destination ?? { server: ARGOCD.inClusterServer, namespace: 'ns-sec-attack' },
    },
  };
}
