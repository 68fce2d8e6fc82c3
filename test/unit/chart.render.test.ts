// The chart as the pinned Helm renders it (helm template, no cluster): the configuration
// ConfigMap holds exactly the values, the namespaces carry their Pod Security levels, plans are
// held to their writers by an admission policy, and nothing an uninstall would take with it is
// left unprotected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  ADMISSION_KEYS,
  ARGOCD,
  CHART,
  CONFIGURATION,
  NAMESPACES,
  PLAN_ADMISSION,
  SECURITY_ADMISSION,
} from '../../shared/api/constants.ts';
import {
  A_REBUILT_PLAN,
  FROM_A_PLAN_WRITER,
  IS_OR_WAS_A_PLAN,
  NOT_FINISHING_A_DELETION,
} from '../../shared/rbac/planAdmission.ts';
import { CHART_DIR } from '../../infra/chartPaths.ts';
import { WORKLOAD_BINDING } from '../../shared/rbac/workloadAdmission.ts';
import { admissionDisagreements } from '../../shared/configuration/admissionData.ts';
import { ConfigurationSchema } from '../../shared/configuration/schema.ts';
import { DEFAULT_CLUSTER_RESOURCES, DEFAULT_RELEASE_NAMESPACES } from '../../shared/api/releaseNamespaces.ts';
import { CHART_VALUES, renderChart, type RenderedObject } from '../../harness/chart.ts';

const KEEP = 'helm.sh/resource-policy';

function configOf(objects: readonly RenderedObject[]): unknown {
  const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === CONFIGURATION.name);
  assert.ok(cm, `the chart renders ConfigMap ${CONFIGURATION.name}`);
  assert.equal(cm.metadata.namespace, CONFIGURATION.namespace);
  const data = cm['data'] as Record<string, string>;
  assert.deepEqual(Object.keys(data).sort(), [CONFIGURATION.key, ...Object.values(ADMISSION_KEYS)].sort());
  const document = parse(data[CONFIGURATION.key] ?? '') as unknown;
  // What the admission policies read is what the control plane derives from config.yaml, or it refuses the ConfigMap.
  assert.deepEqual(
    admissionDisagreements(ConfigurationSchema.parse(document), data),
    [],
    'the admission keys agree with config.yaml',
  );
  return document;
}

test('Chart.yaml names the chart and carries the package version', () => {
  const chart = parse(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8')) as {
    name: string;
    version: string;
    appVersion: string;
  };
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal(chart.name, CHART.name);
  assert.deepEqual([chart.version, chart.appVersion], [pkg.version, pkg.version]);
});

test('with the default values the configuration holds the documented empty defaults', async () => {
  assert.deepEqual(configOf(await renderChart()), {
    aicr: { versions: {}, jobs: { nodeSelector: {}, tolerations: [] }, validatorImages: {}, digests: 'Required' },
    registry: { repository: '', plainHTTP: false, auth: { mode: 'static', staticSecretRef: '' } },
    argocd: {
      project: ARGOCD.project,
      createProject: true,
      clusterResources: [...DEFAULT_CLUSTER_RESOURCES],
      namespaces: [...DEFAULT_RELEASE_NAMESPACES],
      destination: { server: 'https://kubernetes.default.svc', name: '' },
      mode: 'self-managed',
      syncWindows: [],
    },
    plans: { keep: 5 },
    rollouts: { keep: 20 },
    drift: { checkInterval: '5m' },
  });
});

test('outside local mode the chart refuses an image without a digest, naming the key, and installs pinned ones', async () => {
  const digest = 'sha256:' + '1'.repeat(64);
  await assert.rejects(
    renderChart(['--set', 'aicr.versions.v0\\.11\\.1=ghcr.io/nvidia/aicr:v0.11.1']),
    /aicr\.versions\.v0\.11\.1: ghcr\.io\/nvidia\/aicr:v0\.11\.1 carries no digest; pin it as <image>@sha256:<digest>/,
  );
  await assert.rejects(
    renderChart([
      '--set-json',
      'aicr.validatorImages={"ghcr.io/nvidia/aicr-validators/deployment:v0.11.1":"ghcr.io/nvidia/aicr-validators/deployment:v0.11.1"}',
    ]),
    /aicr\.validatorImages\.ghcr\.io\/nvidia\/aicr-validators\/deployment:v0\.11\.1: .* carries no digest/,
  );
  const config = configOf(await renderChart(['--set', `aicr.versions.v0\\.11\\.1=ghcr.io/nvidia/aicr@${digest}`])) as {
    aicr: { versions: Record<string, string>; digests: string };
  };
  assert.deepEqual(
    [config.aicr.versions, config.aicr.digests],
    [{ 'v0.11.1': `ghcr.io/nvidia/aicr@${digest}` }, 'Required'],
  );
  // The control plane reads the configuration the same way: a hand-written one is refused too, naming the key.
  const parsed = ConfigurationSchema.safeParse({
    aicr: { digests: 'Required', versions: { 'v0.11.1': 'ghcr.io/nvidia/aicr:v0.11.1' } },
  });
  assert.equal(parsed.success, false);
  assert.deepEqual(
    parsed.error?.issues.map((i) => i.path.join('.')),
    ['aicr.versions.v0.11.1'],
  );
});

test('the configuration ConfigMap is the YAML of the aicr, registry, argocd, plans, rollouts and drift values, whatever they hold', async () => {
  const toleration = { key: 'dedicated', operator: 'Equal', value: 'system', effect: 'NoSchedule' };
  const objects = await renderChart([
    '-f',
    CHART_VALUES,
    '--set',
    'registry.repository=registry.example:5000/aicr',
    '--set-json',
    `aicr.jobs.tolerations=${JSON.stringify([toleration])}`,
    '--set-json',
    'aicr.jobs.nodeSelector={"node-role/system":"true"}',
    '--set-json',
    'aicr.validatorImages={"ghcr.io/nvidia/aicr-validators/deployment:v0.11.1":"ghcr.io/nvidia/aicr-validators/deployment@sha256:0000000000000000000000000000000000000000000000000000000000000000"}',
    '--set',
    'registry.auth.staticSecretRef=aicr-registry',
    '--set',
    'plans.keep=3',
    '--set',
    'rollouts.keep=7',
    '--set',
    'argocd.project=gpu-stack',
    '--set',
    'argocd.createProject=false',
    '--set-json',
    'argocd.namespaces=["gpu-operator","team-*"]',
    '--set',
    'argocd.destination.name=eks-prod',
    '--set',
    'argocd.mode=managed',
    '--set',
    'drift.checkInterval=90s',
  ]);
  assert.deepEqual(configOf(objects), {
    aicr: {
      versions: { 'v0.11.1': 'ghcr.io/nvidia/aicr:v0.11.1' },
      jobs: { nodeSelector: { 'node-role/system': 'true' }, tolerations: [toleration] },
      validatorImages: {
        'ghcr.io/nvidia/aicr-validators/deployment:v0.11.1':
          'ghcr.io/nvidia/aicr-validators/deployment@sha256:0000000000000000000000000000000000000000000000000000000000000000',
      },
      digests: 'Optional',
    },
    registry: {
      repository: 'registry.example:5000/aicr',
      plainHTTP: true,
      auth: { mode: 'static', staticSecretRef: 'aicr-registry' },
    },
    argocd: {
      project: 'gpu-stack',
      createProject: false,
      clusterResources: [...DEFAULT_CLUSTER_RESOURCES],
      namespaces: ['gpu-operator', 'team-*'],
      destination: { server: 'https://kubernetes.default.svc', name: 'eks-prod' },
      mode: 'managed',
      syncWindows: [],
    },
    plans: { keep: 3 },
    rollouts: { keep: 7 },
    drift: { checkInterval: '90s' },
  });
});

test('the chart owns the Job namespaces with their Pod Security levels, and keeps them and its CRDs on uninstall', async () => {
  const objects = await renderChart();
  const namespaces = objects.filter((o) => o.kind === 'Namespace');
  assert.deepEqual(
    namespaces.map((n) => n.metadata.name).sort(),
    [NAMESPACES.discovery, NAMESPACES.jobs, NAMESPACES.validation].sort(),
  );
  const enforce = Object.fromEntries(
    namespaces.map((n) => [n.metadata.name, n.metadata.labels?.['pod-security.kubernetes.io/enforce']]),
  );
  assert.deepEqual(enforce, {
    [NAMESPACES.discovery]: 'privileged',
    [NAMESPACES.jobs]: 'baseline',
    [NAMESPACES.validation]: 'baseline',
  });
  const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
  assert.equal(crds.length, 2);
  // The AppProject too: Applications an Orphan deletion leaves behind still name it.
  const projects = objects.filter((o) => o.kind === 'AppProject');
  assert.equal(projects.length, 1);
  // The policies that read a parameter too: the API server stops watching a parameter kind no policy names, for good.
  const parameterised = objects.filter(
    (o) =>
      (o.kind === 'ValidatingAdmissionPolicy' && 'paramKind' in (o['spec'] as object)) ||
      (o.kind === 'ValidatingAdmissionPolicyBinding' && 'paramRef' in (o['spec'] as object)),
  );
  assert.deepEqual(
    [...new Set(parameterised.map((o) => o.metadata.name))].sort(),
    [SECURITY_ADMISSION.applicationOwnership, SECURITY_ADMISSION.workloads, WORKLOAD_BINDING].sort(),
  );
  const kept = [...namespaces, ...crds, ...projects, ...parameterised];
  for (const o of kept)
    assert.equal(o.metadata.annotations?.[KEEP], 'keep', `${o.kind} ${o.metadata.name} survives an uninstall`);
  for (const o of objects.filter((x) => !kept.includes(x))) {
    assert.equal(o.metadata.annotations?.[KEEP], undefined, `${o.kind} ${o.metadata.name} goes with the release`);
  }
});

function appProject(objects: readonly RenderedObject[]): RenderedObject | undefined {
  return objects.find((o) => o.kind === 'AppProject');
}

test("SEC-4 the chart ships the AppProject argocd.project names, in Argo CD's namespace: charts from registry.repository only, releases only to argocd.namespaces on the configured cluster, cluster-scoped kinds only from argocd.clusterResources", async () => {
  const project = appProject(await renderChart(['--set', 'registry.repository=registry.example:5000/aicr']));
  assert.ok(project, 'the chart renders an AppProject');
  assert.equal(project.apiVersion, 'argoproj.io/v1alpha1');
  assert.deepEqual([project.metadata.name, project.metadata.namespace], [ARGOCD.project, NAMESPACES.argocd]);
  const spec = project['spec'] as Record<string, unknown>;
  assert.deepEqual(
    spec['sourceRepos'],
    ['oci://registry.example:5000/aicr/**', 'registry.example:5000/aicr'],
    'charts pinned by digest under the prefix (SEC-9), and the Helm-over-OCI form of Applications written before',
  );
  assert.deepEqual(
    spec['destinations'],
    DEFAULT_RELEASE_NAMESPACES.map((namespace) => ({ server: ARGOCD.inClusterServer, namespace })),
  );
  assert.deepEqual(spec['clusterResourceWhitelist'], DEFAULT_CLUSTER_RESOURCES, 'only the listed cluster-scoped kinds');
  const byName = appProject(
    await renderChart([
      '--set',
      'argocd.project=gpu-stack',
      '--set',
      'argocd.destination.name=eks-prod',
      '--set-json',
      'argocd.namespaces=["gpu-operator","team-*"]',
    ]),
  );
  assert.equal(byName?.metadata.name, 'gpu-stack');
  assert.deepEqual(
    (byName?.['spec'] as Record<string, unknown>)['destinations'],
    [
      { name: 'eks-prod', namespace: 'gpu-operator' },
      { name: 'eks-prod', namespace: 'team-*' },
    ],
    'a cluster registered by name is the destination by name',
  );
});

test("WIN-3 argocd.syncWindows become the AppProject's sync windows as Argo CD reads them; none by default; a bad one is refused by the values schema naming the field", async () => {
  assert.equal((appProject(await renderChart([]))?.['spec'] as Record<string, unknown>)['syncWindows'], undefined);
  const windows = [
    { kind: 'deny', schedule: '0 22 * * 1-5', duration: '8h', applications: ['gpu-*'], timeZone: 'Europe/Berlin' },
  ];
  const set = ['--set-json', `argocd.syncWindows=${JSON.stringify(windows)}`];
  assert.deepEqual((appProject(await renderChart(set))?.['spec'] as Record<string, unknown>)['syncWindows'], windows);
  await assert.rejects(
    renderChart(['--set-json', 'argocd.syncWindows=[{"kind":"Deny","schedule":"0 22 * * 1-5","duration":"8h"}]']),
    /at '\/argocd\/syncWindows\/0\/kind': value must be one of 'allow', 'deny'/,
  );
});

test("with argocd.createProject=false the chart ships no AppProject, and it refuses to ship Argo CD's own default", async () => {
  assert.equal(appProject(await renderChart(['--set', 'argocd.createProject=false'])), undefined);
  assert.equal(
    appProject(
      await renderChart(['--set', 'argocd.createProject=false', '--set', `argocd.project=${ARGOCD.defaultProject}`]),
    ),
    undefined,
  );
  await assert.rejects(
    renderChart(['--set', `argocd.project=${ARGOCD.defaultProject}`]),
    /would take over Argo CD's own AppProject default/,
  );
});

test('the chart refuses a release namespace other than aicr-system', async () => {
  await assert.rejects(renderChart([], 'default'), /install this chart into the namespace aicr-system/);
});

test('PLAN-1 the chart holds plans to their writers: a denying policy on creating and changing ConfigMaps in aicr-system, and its binding', async () => {
  const objects = await renderChart();
  const policy = objects.find((o) => o.kind === 'ValidatingAdmissionPolicy' && o.metadata.name === PLAN_ADMISSION.name);
  const binding = objects.find(
    (o) => o.kind === 'ValidatingAdmissionPolicyBinding' && o.metadata.name === PLAN_ADMISSION.name,
  );
  assert.ok(policy && binding, 'the chart renders the policy and its binding');
  for (const o of [policy, binding]) assert.equal(o.apiVersion, 'admissionregistration.k8s.io/v1');
  assert.deepEqual(policy['spec'], {
    failurePolicy: 'Fail',
    matchConstraints: {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NAMESPACES.system } },
      // No DELETE: deleting a plan is how a person has it resolved again.
      resourceRules: [
        { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] },
      ],
    },
    matchConditions: [
      { name: 'is-or-was-a-plan', expression: IS_OR_WAS_A_PLAN },
      { name: 'not-finishing-a-deletion', expression: NOT_FINISHING_A_DELETION },
    ],
    validations: [
      {
        expression: `${FROM_A_PLAN_WRITER} || (${A_REBUILT_PLAN})`,
        message: PLAN_ADMISSION.message,
        reason: 'Forbidden',
      },
    ],
  });
  assert.deepEqual(binding['spec'], { policyName: PLAN_ADMISSION.name, validationActions: ['Deny'] });
});

test("SEC-8 SEC-3 the policy on the control plane's Application writes reads no parameter: the project, namespaces and cluster are rendered into it from the values", async () => {
  const objects = await renderChart([
    '--set',
    'argocd.project=gpu-stack',
    '--set-json',
    'argocd.namespaces=["gpu-operator","team-*"]',
    '--set',
    'argocd.destination.name=eks-prod',
  ]);
  const policy = objects.find(
    (o) => o.kind === 'ValidatingAdmissionPolicy' && o.metadata.name === SECURITY_ADMISSION.applicationProject,
  );
  const binding = objects.find(
    (o) => o.kind === 'ValidatingAdmissionPolicyBinding' && o.metadata.name === SECURITY_ADMISSION.applicationProject,
  );
  assert.ok(policy && binding);
  assert.equal('paramKind' in (policy['spec'] as object), false);
  assert.equal('paramRef' in (binding['spec'] as object), false);
  const expressions = ((policy['spec'] as { validations: { expression: string }[] }).validations ?? []).map(
    (v) => v.expression,
  );
  assert.match(expressions[0] ?? '', /^object\.spec\.project == 'gpu-stack' \|\|/);
  assert.match(expressions[1] ?? '', / in \['gpu-operator', \] \|\| \['team-', \]\.exists\(/);
  assert.match(expressions[2] ?? '', /^'eks-prod' != '' \?/);
  await assert.rejects(
    renderChart(['--set-json', `argocd.namespaces=["it's"]`]),
    /at '\/argocd\/namespaces\/0'/,
    'a value that would break out of its CEL literal is refused by the values schema',
  );
});
