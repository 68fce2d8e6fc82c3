// A release set shaped like an AICR plan for EKS with GPUs: charts mirrored into one ECR
// registry (some pinned by digest, some from a plan made before digests were recorded), a chart
// that also has raw manifests, a manifests-only component, a manual component
// with steps, dependencies, and Helm values with every case the API server might alter (nulls
// that delete chart defaults, floats, big integers, empty maps and lists, dotted keys, strings
// that look like booleans or numbers).
import type { ChartSource, Release } from '../../shared/plans/release.ts';

export const REGISTRY = '123456789012.dkr.ecr.us-west-2.amazonaws.com/aicr';

export function mirrored(chart: string, version: string): ChartSource {
  return { repoURL: `${REGISTRY}/charts`, chart, version };
}

export function manifestsOf(component: string, version: string): ChartSource {
  return { repoURL: `${REGISTRY}/manifests`, chart: `${component}-manifests`, version };
}

/** A manifest digest as resolution records it when it mirrors a chart (SEC-5). */
export const pinned = (source: ChartSource, seed: string): ChartSource => ({
  ...source,
  digest: `sha256:${seed.repeat(64).slice(0, 64)}`,
});

const base = (): Pick<Release, 'dependsOn' | 'manual' | 'steps'> => ({ dependsOn: [], manual: false, steps: [] });

/** Values with nulls but no empty map: they ride as `valuesObject`. */
const gpuOperatorValues: Release['values'] = {
  driver: {
    enabled: true,
    version: '580.82.07',
    upgradePolicy: { maxParallelUpgrades: 1, drain: { timeoutSeconds: 300 } },
  },
  toolkit: { enabled: 'true' },
  dcgmExporter: { serviceMonitor: { enabled: true, interval: '15s', honorLabels: false } },
  daemonsets: {
    tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
    priorityClassName: null,
  },
  node: { selector: { 'nvidia.com/gpu.present': 'true', 'node.kubernetes.io/instance-type': 'p5.48xlarge' } },
  migManager: { config: { name: null, default: 'all-disabled' } },
  validator: { plugin: { env: [{ name: 'WITH_WORKLOAD', value: 'false' }] } },
  version: '1.0',
  ratio: 1.0,
  fraction: 0.5,
  tiny: 1e-7,
  sum: 0.1 + 0.2,
  maxSafe: Number.MAX_SAFE_INTEGER,
  bytes: 107374182400,
  huge: 1e21,
  negative: -42,
  list: [],
  nullsInLists: [1, null, { a: null }],
};

/** Values with nulls and empty maps: they ride as `values`, JSON text. */
const prometheusValues: Release['values'] = {
  prometheus: {
    prometheusSpec: {
      storageSpec: {
        emptyDir: null,
        volumeClaimTemplate: { spec: { storageClassName: 'gp3', resources: { requests: { storage: '200Gi' } } } },
      },
      retentionSize: '180GB',
      scrapeInterval: '30s',
      ruleSelectorNilUsesHelmValues: false,
      podMonitorSelector: {},
      serviceMonitorSelector: {},
      additionalScrapeConfigs: [],
      resources: { requests: { cpu: 0.5, memory: '4Gi' }, limits: { cpu: 2.0 } },
    },
  },
  alertmanager: { enabled: false, config: null },
  grafana: {
    enabled: true,
    'grafana.ini': { 'auth.anonymous': { enabled: 'true', org_role: 'Viewer' } },
    sidecar: { dashboards: {} },
  },
  'kube-state-metrics': { metricLabelsAllowlist: ['nodes=[nvidia.com/gpu.product]'] },
  nodeExporter: { enabled: 'false' },
  defaultRules: { rules: {} },
};

const SAMPLE: Release[] = [
  {
    ...base(),
    name: 'cert-manager',
    namespace: 'cert-manager',
    order: 0,
    chart: pinned(mirrored('cert-manager', 'v1.17.2'), 'c0ffee'),
    values: { crds: { enabled: true }, replicaCount: 1 },
  },
  {
    ...base(),
    name: 'kgateway-crds',
    namespace: 'kgateway-system',
    order: 1,
    manifests: manifestsOf('kgateway-crds', '0.11.1'),
    values: {},
  },
  {
    ...base(),
    name: 'gpu-operator',
    namespace: 'gpu-operator',
    order: 2,
    chart: pinned(mirrored('gpu-operator', 'v25.3.4'), '9a1'),
    manifests: pinned(manifestsOf('gpu-operator', '0.11.1'), '5e7'),
    values: gpuOperatorValues,
    dependsOn: ['cert-manager'],
  },
  {
    ...base(),
    name: 'kube-prometheus-stack',
    namespace: 'monitoring',
    order: 3,
    chart: mirrored('kube-prometheus-stack', '75.15.1'),
    values: prometheusValues,
  },
  {
    ...base(),
    name: 'nvsentinel',
    namespace: 'nvsentinel',
    order: 4,
    chart: mirrored('nvsentinel', '0.3.0'),
    values: { global: { metrics: { enabled: true } } },
    dependsOn: ['gpu-operator', 'kube-prometheus-stack'],
  },
  {
    ...base(),
    name: 'skyhook-customizations',
    namespace: 'skyhook',
    order: 5,
    manifests: manifestsOf('skyhook-customizations', '0.11.1'),
    values: { tuning: { hugepages: 2048 } },
    dependsOn: ['gpu-operator'],
    manual: true,
    steps: [
      'Cordon the GPU nodes, then apply the tuning: kubectl apply -f tuning.yaml',
      'Reboot each node, one at a time, and "uncordon" it',
    ],
  },
];

/** A fresh copy each time, so a test that edits what it got cannot change another test's set. */
export function sampleReleases(): Release[] {
  return structuredClone(SAMPLE);
}
