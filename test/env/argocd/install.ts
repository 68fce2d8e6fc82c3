// Argo CD for the test cluster and local mode, from the release's own install manifests
// (manifests/core-install.yaml of the source the bootstrap built the binary from): the
// application controller, the repo-server and Redis, with Argo CD's own ServiceAccounts, RBAC
// and configuration. Only what this cluster needs is changed:
// - the test cluster routes no Services (no kube-proxy) and its Pods share this machine's
//   network, so the repo-server, Redis and metrics listen on loopback ports chosen at up time,
//   and the controller and repo-server find them through argocd-cmd-params-cm;
// - Argo CD's periodic re-comparison is scaled down (see argocd-cm below);
// - the ApplicationSet controller is left out (nothing here uses it);
// - the AppProject `default`, which Argo CD's API server creates when it starts, is created
//   here since no API server runs (with the same permissive rules the API server gives it).
// Images stay as the manifests name them; the process node's image table maps them to the
// binary built from the same source and to Debian's redis-server.
// Prints the manifest to apply, as a JSON List (kubectl apply --server-side -f -).
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';

export const ARGOCD_NAMESPACE = 'argocd';

export interface Ports {
  readonly repoServer: number;
  readonly repoServerMetrics: number;
  readonly controllerMetrics: number;
  readonly redis: number;
}

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
  spec?: { template?: { spec?: PodSpec }; [key: string]: unknown };
  [key: string]: unknown;
}

interface Container {
  name: string;
  args?: string[];
  [key: string]: unknown;
}

interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  [key: string]: unknown;
}

const CLUSTER_SCOPED = new Set(['CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'Namespace']);
/** Components this environment does not run. */
const LEFT_OUT = /applicationset-controller/;

function podSpec(o: Obj): PodSpec {
  const spec = o.spec?.template?.spec;
  if (!spec) throw new Error(`${o.kind} ${o.metadata.name} has no pod template`);
  return spec;
}

function container(o: Obj, name: string): Container {
  const c = podSpec(o).containers.find((x) => x.name === name);
  if (!c) throw new Error(`${o.kind} ${o.metadata.name} has no container ${name}`);
  return c;
}

/** Extra arguments for the container of a workload: loopback ports (and address) of their own. */
function extraArgs(o: Obj, ports: Ports): { container: string; args: string[] } | undefined {
  const name = `${o.kind}/${o.metadata.name}`;
  if (name === 'Deployment/argocd-repo-server')
    return {
      container: 'argocd-repo-server',
      args: ['--port', String(ports.repoServer), '--metrics-port', String(ports.repoServerMetrics)],
    };
  if (name === 'StatefulSet/argocd-application-controller')
    return { container: 'argocd-application-controller', args: ['--metrics-port', String(ports.controllerMetrics)] };
  if (name === 'Deployment/argocd-redis')
    return { container: 'redis', args: ['--port', String(ports.redis), '--bind', '127.0.0.1'] };
  return undefined;
}

/** Settings for Argo CD's ConfigMaps. */
function extraData(o: Obj, ports: Ports): Record<string, string> | undefined {
  if (o.kind !== 'ConfigMap') return undefined;
  if (o.metadata.name === 'argocd-cmd-params-cm') {
    return {
      'repo.server': `127.0.0.1:${ports.repoServer}`,
      'redis.server': `127.0.0.1:${ports.redis}`,
      'reposerver.listen.address': '127.0.0.1',
      'reposerver.metrics.listen.address': '127.0.0.1',
    };
  }
  // Scaled timing, as every wait here is: Argo CD compares each Application again every
  // 120 s plus up to 60 s of jitter by default, which is also how long a health change it
  // missed (seen here: a Deployment available a moment before a reconcile reported it
  // Progressing) takes to show. 15 s with 5 s of jitter keeps such waits short.
  if (o.metadata.name === 'argocd-cm')
    return { 'timeout.reconciliation': '15s', 'timeout.reconciliation.jitter': '5s' };
  return undefined;
}

/** The changes this cluster needs, applied to one object of Argo CD's manifests. */
function adapt(o: Obj, ports: Ports): Obj {
  const data = extraData(o, ports);
  if (data) o.data = { ...o.data, ...data };
  const extra = extraArgs(o, ports);
  if (extra) {
    const c = container(o, extra.container);
    c.args = [...(c.args ?? []), ...extra.args];
  }
  return o;
}

/** The AppProject Argo CD's API server creates at start when none named `default` exists. */
function defaultProject(): Obj {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AppProject',
    metadata: { name: 'default', namespace: ARGOCD_NAMESPACE },
    spec: {
      sourceRepos: ['*'],
      destinations: [{ server: '*', namespace: '*' }],
      clusterResourceWhitelist: [{ group: '*', kind: '*' }],
    },
  };
}

/** Argo CD's install manifests as this cluster runs them. */
export function argoCdObjects(manifestText: string, ports: Ports): { crds: Obj[]; objects: Obj[] } {
  const docs = parseAllDocuments(manifestText)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null && typeof o === 'object');
  const kept = docs.filter(
    (o) => !LEFT_OUT.test(o.metadata.name) && !LEFT_OUT.test(o.metadata.labels?.['app.kubernetes.io/name'] ?? ''),
  );
  const placed = kept.map((o) =>
    CLUSTER_SCOPED.has(o.kind) ? o : { ...o, metadata: { ...o.metadata, namespace: ARGOCD_NAMESPACE } },
  );
  const crds = placed.filter((o) => o.kind === 'CustomResourceDefinition' && !/applicationsets/.test(o.metadata.name));
  const rest = placed.filter((o) => o.kind !== 'CustomResourceDefinition').map((o) => adapt(o, ports));
  const namespace: Obj = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ARGOCD_NAMESPACE } };
  return { crds, objects: [namespace, ...rest] };
}

/** As a JSON List: YAML would need care with values like "no", which kubectl reads as YAML 1.1 booleans. */
export function asList(objects: readonly Obj[]): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      manifests: { type: 'string' },
      part: { type: 'string' },
      'repo-server-port': { type: 'string' },
      'repo-server-metrics-port': { type: 'string' },
      'controller-metrics-port': { type: 'string' },
      'redis-port': { type: 'string' },
    },
  });
  const port = (name: keyof typeof values): number => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a port number`);
    return n;
  };
  if (!values.manifests) throw new Error('--manifests must name core-install.yaml');
  const ports = {
    repoServer: port('repo-server-port'),
    repoServerMetrics: port('repo-server-metrics-port'),
    controllerMetrics: port('controller-metrics-port'),
    redis: port('redis-port'),
  };
  const { crds, objects } = argoCdObjects(await readFile(values.manifests, 'utf8'), ports);
  // CRDs first, on their own: the AppProject below needs its CRD established before it is applied.
  if (values.part === 'crds') process.stdout.write(asList(crds));
  else if (values.part === 'project') process.stdout.write(asList([defaultProject()]));
  else process.stdout.write(asList(objects));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    console.error(`[argocd-install] ${(err as Error).message}`);
    process.exit(1);
  });
}
