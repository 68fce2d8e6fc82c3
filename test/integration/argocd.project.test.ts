// The AppProject the chart ships (infra/chart/templates/appproject.yaml), enforced by Argo CD
// v3.5.1's own application controller: an Application in it whose source the project does not
// allow is refused with Argo CD's reason and never synced, although the chart is there to pull;
// and what a project stops permitting is left in place when its Application is deleted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ARGOCD } from '../../shared/api/constants.ts';
import {
  ARGOCD_NS,
  type Application,
  appReaches,
  createApp,
  deleteApp,
  patchApp,
  readApp,
  repositorySecret,
} from '../helpers/argocd.ts';
import { testEnv, uniqueName } from '../../harness/env.ts';
import { CHART_PREFIX, pushChart } from '../../harness/rolloutStage.ts';
import { kubectlApply } from '../../harness/kubectlApply.ts';
import { ensureCrds, kubectl } from '../../harness/runtime.ts';

const prefix = uniqueName('project');
const cleanups: (() => Promise<void>)[] = [];
const apps: string[] = [];

/**
 * The test registry under a DNS name (localhost) instead of its IP: Argo CD normalises a
 * scheme-less host:port source as a URL, which an IP host does not parse as, so only a named
 * host is told apart from registry.repository (docs/deploy.md#argo-cd-appproject).
 */
const elsewhere = (): string =>
  `${testEnv().TESTENV_REGISTRY.replace(/^127\.0\.0\.1:/, 'localhost:')}/aicr/rollout-charts`;

before(async () => {
  await ensureCrds();
  await pushChart(`${prefix}-demo`, '1.0.0');
  cleanups.push(await repositorySecret(`${prefix}-repo`, elsewhere()));
  cleanups.push(await repositorySecret(`${prefix}-charts`, `${testEnv().TESTENV_REGISTRY}/${CHART_PREFIX}`));
});

after(async () => {
  await Promise.all(apps.map(deleteApp));
  for (const undo of cleanups) await undo();
});

const invalidSpec = (a: Application | undefined): string | undefined =>
  a?.status?.conditions?.find((c) => c.type === 'InvalidSpecError')?.message;

test("SEC-4 Argo CD enforces the chart's AppProject: an Application in it whose source is outside registry.repository is refused with InvalidSpecError naming the project, and nothing is synced", async () => {
  const project = JSON.parse(await kubectl('get', 'appproject', ARGOCD.project, '-n', ARGOCD_NS, '-o', 'json')) as {
    spec: { sourceRepos: string[] };
  };
  assert.deepEqual(
    project.spec.sourceRepos,
    [`oci://${testEnv().TESTENV_REGISTRY}/aicr/**`, `${testEnv().TESTENV_REGISTRY}/aicr`],
    'the chart ships the project with registry.repository as its source, pinned (SEC-9) and by version',
  );
  const name = uniqueName('outside');
  // A namespace the test cluster's argocd.namespaces allows (ns-*), so only the source is wrong.
  const ns = `ns-${name}`;
  apps.push(name);
  const spec = {
    project: ARGOCD.project,
    destination: { server: ARGOCD.inClusterServer, namespace: ns },
    source: { repoURL: elsewhere(), chart: `${prefix}-demo`, targetRevision: '1.0.0' },
    syncPolicy: { automated: { prune: true, selfHeal: true }, syncOptions: ['CreateNamespace=true'] },
  };
  await createApp(name, spec);
  const refused = await appReaches(name, 'refused by its project', (a) => invalidSpec(a) !== undefined, 60_000);
  assert.equal(invalidSpec(refused), `application repo ${elsewhere()} is not permitted in project '${ARGOCD.project}'`);
  // A few more reconciliations: still refused, never synced, its namespace never created.
  await new Promise((r) => setTimeout(r, 5_000));
  const later = await readApp(name);
  assert.ok(invalidSpec(later));
  assert.equal(later?.status?.operationState, undefined, 'no sync was started');
  assert.equal(
    (await kubectl('get', 'namespace', ns, '--ignore-not-found', '-o', 'name')).trim(),
    '',
    'nothing was deployed',
  );
});

test("SEC-4 the chart's AppProject deploys only to argocd.namespaces: an Application in it aimed at another namespace is refused by Argo CD, and nothing is synced", async () => {
  const name = uniqueName('wide');
  const ns = `${name}-ns`;
  apps.push(name);
  await createApp(name, {
    project: ARGOCD.project,
    destination: { server: ARGOCD.inClusterServer, namespace: ns },
    source: { repoURL: `${testEnv().TESTENV_REGISTRY}/aicr`, chart: `${prefix}-demo`, targetRevision: '1.0.0' },
    syncPolicy: { automated: { prune: true, selfHeal: true }, syncOptions: ['CreateNamespace=true'] },
  });
  const refused = await appReaches(name, 'refused by its project', (a) => invalidSpec(a) !== undefined, 60_000);
  assert.equal(
    invalidSpec(refused),
    `application destination server '${ARGOCD.inClusterServer}' and namespace '${ns}' do not match any of the allowed destinations in project '${ARGOCD.project}'`,
  );
  assert.equal((await readApp(name))?.status?.operationState, undefined, 'no sync was started');
  assert.equal(
    (await kubectl('get', 'namespace', ns, '--ignore-not-found', '-o', 'name')).trim(),
    '',
    'nothing was deployed',
  );
});

test("SEC-4 the chart's AppProject deploys only to the configured cluster: an Application in it aimed at another cluster is refused by Argo CD", async () => {
  const name = uniqueName('elsewhere');
  apps.push(name);
  const server = 'https://kubernetes.elsewhere.example';
  // Argo CD looks the cluster up before the project, so the other cluster is one it knows.
  await kubectlApply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `${prefix}-elsewhere`,
      namespace: ARGOCD_NS,
      labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
    },
    stringData: { name: 'elsewhere', server, config: JSON.stringify({ tlsClientConfig: { insecure: true } }) },
  });
  cleanups.push(
    async () => void (await kubectl('delete', 'secret', `${prefix}-elsewhere`, '-n', ARGOCD_NS, '--ignore-not-found')),
  );
  await createApp(name, {
    project: ARGOCD.project,
    destination: { server, namespace: `${name}-ns` },
    source: { repoURL: `${testEnv().TESTENV_REGISTRY}/aicr`, chart: `${prefix}-demo`, targetRevision: '1.0.0' },
  });
  const refused = await appReaches(name, 'refused by its project', (a) => invalidSpec(a) !== undefined, 60_000);
  assert.match(
    invalidSpec(refused) ?? '',
    new RegExp(
      `${server.replace(/\./g, '\\.')}.*do(es)? not match any of the allowed destinations in project '${ARGOCD.project}'`,
    ),
  );
  assert.equal((await readApp(name))?.status?.operationState, undefined, 'no sync was started');
});

test('SEC-4 a resource its project no longer permits is left in place when the Application is deleted with the resources finalizer, while the rest of the release goes', async () => {
  // A project of the test's own, narrowed after the sync as a person narrowing the chart's would.
  const project = `${prefix}-narrowed`;
  await kubectlApply({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AppProject',
    metadata: { name: project, namespace: ARGOCD_NS },
    spec: {
      sourceRepos: ['*'],
      destinations: [{ server: ARGOCD.inClusterServer, namespace: '*' }],
      clusterResourceWhitelist: [{ group: '*', kind: '*' }],
    },
  });
  cleanups.push(
    async () => void (await kubectl('delete', 'appproject', project, '-n', ARGOCD_NS, '--ignore-not-found')),
  );
  const name = uniqueName('narrowed');
  const ns = `${name}-ns`;
  apps.push(name);
  cleanups.push(async () => void (await kubectl('delete', 'namespace', ns, '--ignore-not-found', '--timeout=120s')));
  await createApp(
    name,
    {
      project,
      destination: { server: ARGOCD.inClusterServer, namespace: ns },
      source: {
        repoURL: `${testEnv().TESTENV_REGISTRY}/${CHART_PREFIX}`,
        chart: `${prefix}-demo`,
        targetRevision: '1.0.0',
        helm: { releaseName: 'left' },
      },
      syncPolicy: {
        automated: { prune: true, selfHeal: true },
        syncOptions: ['CreateNamespace=true', 'ServerSideApply=true'],
      },
    },
    { finalizers: ['resources-finalizer.argocd.argoproj.io'] },
  );
  await appReaches(
    name,
    'to be synced and healthy',
    (a) => a?.status?.sync?.status === 'Synced' && a.status.health?.status === 'Healthy',
    90_000,
  );
  const present = async (kind: string, object: string): Promise<boolean> =>
    (await kubectl('get', kind, object, '-n', ns, '--ignore-not-found', '-o', 'name')).trim() !== '';
  assert.ok(await present('configmap', 'left-fixture'), 'the release deployed its ConfigMap');
  // With automated sync on, the narrowed project makes self-heal start a sync that fails and is
  // retried (5 times, backing off), and the deletion waits for that operation: minutes. Off, as
  // for an Application whose sync a person paused, the deletion alone is seen.
  await patchApp(name, { spec: { syncPolicy: null } });
  await kubectl(
    'patch',
    'appproject',
    project,
    '-n',
    ARGOCD_NS,
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { namespaceResourceBlacklist: [{ group: '', kind: 'ConfigMap' }] } }),
  );
  // The controller reads projects from its informer: let it see the narrowed one before the delete.
  await appReaches(
    name,
    'to report its ConfigMap as not permitted',
    (a) => JSON.stringify(a?.status?.conditions ?? []).includes('ConfigMap') || a?.status?.sync?.status !== 'Synced',
    60_000,
  );
  await deleteApp(name);
  await appReaches(name, 'to be gone once the resources it may delete are deleted', (a) => a === undefined, 90_000);
  assert.equal(await present('deployment', 'left-workload'), false, 'the permitted workload is deleted');
  assert.equal(await present('configmap', 'left-fixture'), true, 'the ConfigMap the project no longer permits stays');
});
