// The whole flow as local mode shows it and the rollout guide walks it: the example runtime
// applied with kubectl, discovery and a real resolution by the real aicr, every chart copied into
// the registry, a rollout waiting for approval, `kubectl aicr approve`, then every release
// written to Argo CD in plan order (Argo CD fetching each chart from the registry
// with the repository Secret), then AICR's deployment validation with the checks the example's
// recipe names, until the runtime is Ready. The configuration is the chart's, as local mode
// installs it: the validator image pinned by digest, nothing set by the test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANNOTATION,
  CONDITION,
  IDENTITY_GROUP,
  IDENTITY_USER,
  LABEL,
  MANAGED_BY_VALUE,
  NAMESPACES,
  ROLE,
} from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { readPlanConfigMap } from '../../shared/plans/store.ts';
import { fieldAt } from '../../shared/kube/fieldPath.ts';
import { installChart } from '../../harness/chart.ts';
import { applyConfiguration, ensureArgoCdRepoCreds, ensureRegistrySecrets } from '../../harness/configuration.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { runbookOk as ok } from '../helpers/runbook.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { clearApplications, released, rollout } from '../../harness/rollouts.ts';
import { condition, deleteRuntime, ensureCrds, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';

/** The deployment checks of AICR v0.11.1's h100-eks-ubuntu-training overlay, which the example's criteria select. */
const EXAMPLE_CHECKS = ['operator-health', 'expected-resources', 'gpu-operator-version', 'check-nvidia-smi'];
let cp: ReturnType<typeof startCapturedControlPlane>;
/** Every namespace's labels before the flow, with one a person labelled as their own. */
let namespaceLabels = new Map<string, Record<string, string>>();

async function labelsNow(): Promise<Map<string, Record<string, string>>> {
  const list = JSON.parse(await kubectl('get', 'namespaces', '-o', 'json')) as {
    items: { metadata: { name: string; labels?: Record<string, string> } }[];
  };
  return new Map(list.items.map((n) => [n.metadata.name, n.metadata.labels ?? {}]));
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  // Another test file may have left its own configuration; the chart puts its own back.
  await installChart();
  await ensureRegistrySecrets();
  await ensureArgoCdRepoCreds();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
  await kubectl('create', 'namespace', 'ns1-probe').catch(() => '');
  await kubectl(
    'label',
    '--overwrite',
    'namespace',
    'ns1-probe',
    'team=gpu',
    'pod-security.kubernetes.io/enforce=baseline',
  );
  namespaceLabels = await labelsNow();
  cp = startCapturedControlPlane({ timings: { ...SCALED_TIMINGS, engineRecheckMs: 2_000 } });
});

after(async () => {
  if (process.env['DEBUG_FLOW'])
    for (const r of cp.records()) if (r['level'] !== 'DEBUG') console.error(JSON.stringify(r).slice(0, 600));
  cp.stop();
  await cp.running;
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
  await applyConfiguration();
});

// Up to 7 minutes: Argo CD v3.5.1 sometimes resumes a sync that waits for the health of a
// namespace it created (CreateNamespace=true) only minutes later (seen: 3 min 6 s for kai-scheduler).
test(
  'ROL-1 from kubectl apply of the example to Ready=True: resolved, approved with kubectl aicr, every release synced and healthy in Argo CD in plan order',
  { timeout: 540_000 },
  async () => {
    await kubectl('apply', '-f', 'examples/clusterruntime.yaml');
    const waiting = await released('AwaitingApproval', (reason) => reason === 'AwaitingApproval', 240_000);
    const name = /rollout (aicr-rollout-[0-9a-z-]+)/.exec(waiting.message)?.[1] ?? '';
    const approved = await kubectlAicr(['approve', name]);
    assert.equal(approved.code, 0, approved.stderr);
    await released('Released=True', (reason) => reason === 'Released', 420_000);
    const rt = await waitFor(
      'Ready=True',
      async () => {
        const r = await getRuntime();
        return condition(r, CONDITION.ready)?.status === 'True' ? r : undefined;
      },
      30_000,
    );
    const validated = await rollout(name);
    assert.equal(validated.status?.validation?.state, 'Passed', JSON.stringify(validated.status?.validation));
    // The deployment checks AICR's own overlay for the example's criteria names, each passed against what Argo CD deployed.
    assert.deepEqual(
      validated.status?.validation?.checks,
      EXAMPLE_CHECKS.map((c) => ({ name: c, status: 'passed' })),
    );
    const active = String((rt.status as Record<string, unknown>)['activePlan']);
    const cm = await stepKube('resolve').get(KIND.configMap, active, NAMESPACES.system);
    assert.ok(cm && cm.metadata.labels?.[LABEL.role] === ROLE.plan);
    const read = readPlanConfigMap(cm);
    assert.ok(read.ok);
    const apps = (
      await stepKube('rollout').list(KIND.application, {
        namespace: NAMESPACES.argocd,
        labelSelector: `${LABEL.managedBy}=${MANAGED_BY_VALUE}`,
      })
    ).items;
    assert.deepEqual(
      apps.map((a) => a.metadata.name).sort(),
      read.plan.releases.map((r) => r.name).sort(),
      'one Application per release',
    );
    for (const app of apps) {
      assert.equal(app.metadata.annotations?.[ANNOTATION.planDigest], read.plan.digest);
      assert.deepEqual(
        [fieldAt(app, 'status.sync.status'), fieldAt(app, 'status.health.status')],
        ['Synced', 'Healthy'],
        `${app.metadata.name} is synced and healthy`,
      );
    }
    // The order Argo CD saw them in: each Application's creation follows the plan's deployment order.
    // Timestamps are whole seconds, so ties are put in plan order: only a later creation with an
    // earlier place in the plan fails this.
    const order = (a: (typeof apps)[number]): number => Number(a.metadata.annotations?.[ANNOTATION.releaseOrder]);
    const created = [...apps]
      .sort(
        (a, b) =>
          (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || order(a) - order(b),
      )
      .map(order);
    assert.deepEqual(
      created,
      [...created].sort((a, b) => a - b),
    );
    const table = await kubectl('get', 'applications', '-n', NAMESPACES.argocd);
    assert.match(table, /Synced\s+Healthy/);
  },
);

test('NS-1 the AICR runs of the whole flow (snapshot, recipe, render) leave the labels of every namespace that existed before as they were', async () => {
  const after = await labelsNow();
  for (const [name, labels] of namespaceLabels)
    assert.deepEqual(after.get(name), labels, `namespace ${name} keeps its labels`);
  assert.equal(after.get('ns1-probe')?.['team'], 'gpu');
});

// The runbook's commands, as it prints them, against the runtime the flow above left Ready.
const PLANS =
  'kubectl get configmaps -n aicr-system -l operator.aicr.run/role=plan -L operator.aicr.run/schema-version';
const OWNED = `kubectl -n argocd get applications -l app.kubernetes.io/managed-by=aicr-operator -o custom-columns=\\
'NAME:.metadata.name,RUNTIME:.metadata.annotations.operator\\.aicr\\.run/runtime-uid,ORPHANED:.metadata.annotations.operator\\.aicr\\.run/orphaned-from,PLAN:.metadata.annotations.operator\\.aicr\\.run/plan-digest'`;
const RESNAPSHOT = 'kubectl annotate clusterruntime cluster operator.aicr.run/resnapshot="$(date +%s)" --overwrite';

test("COND-5 the runbook's plan and Application listings and describe run as written and show the schema version, the ownership columns and the Events", async () => {
  const rt = await getRuntime();
  const uid = rt?.metadata.uid ?? '';
  const active = String((rt?.status as Record<string, unknown>)['activePlan']);
  const plans = await ok(PLANS);
  assert.match(plans, /NAME\s+DATA\s+AGE\s+SCHEMA-VERSION/);
  assert.match(plans, new RegExp(`^${active}\\s+\\d+\\s+\\S+\\s+1$`, 'm'), 'the active plan with schema version 1');
  const owned = (await ok(OWNED)).trim().split('\n');
  assert.match(owned[0] ?? '', /^NAME\s+RUNTIME\s+ORPHANED\s+PLAN$/);
  assert.ok(owned.length > 1);
  for (const line of owned.slice(1))
    assert.match(line, new RegExp(`^\\S+\\s+${uid}\\s+<none>\\s+sha256:[0-9a-f]{64}$`), line);
  const described = await ok('kubectl describe clusterruntime cluster   # adds the Events');
  assert.match(described, /Events:[\s\S]*RolloutCreated/);
});

test("COND-5 the runbook's resnapshot annotation starts a new snapshot, and the plan stays the same", async () => {
  const before = await getRuntime();
  const snapshotBefore = JSON.stringify((before?.status as Record<string, unknown>)['discovery']);
  await ok(RESNAPSHOT);
  const asked = (await getRuntime())?.metadata.annotations?.[ANNOTATION.resnapshot] ?? '';
  assert.match(asked, /^\d{10}$/);
  const after = await waitFor(
    'the snapshot taken for the request',
    async () => {
      const r = await getRuntime();
      const d = (r?.status as { discovery?: { snapshot?: { resnapshot?: string } } } | undefined)?.discovery;
      return d?.snapshot?.resnapshot === asked ? r : undefined;
    },
    120_000,
  );
  assert.notEqual(JSON.stringify((after.status as Record<string, unknown>)['discovery']), snapshotBefore);
  await released('Released=True again', (reason) => reason === 'Released', 120_000);
  const activeOf = (r: Awaited<ReturnType<typeof getRuntime>>): unknown =>
    (r?.status as Record<string, unknown> | undefined)?.['activePlan'];
  assert.equal(activeOf(await getRuntime()), activeOf(before));
});

/** `kubectl auth can-i` as one of the control plane's identities: its user and only its group. */
async function can(user: string, group: string, ...question: string[]): Promise<string> {
  return (
    await kubectl('auth', 'can-i', ...question, '--as', user, '--as-group', group).catch(
      (err: { stdout?: string }) => err.stdout ?? '',
    )
  ).trim();
}

test("the flow above ran with the chart's rights alone: each identity it acted as holds what its step-table row grants and nothing an admin has", async () => {
  const identities = [
    [IDENTITY_USER.forwarder, IDENTITY_GROUP.forwarder],
    ...STEP_TABLE.map((r) => [IDENTITY_USER.step(r.name), IDENTITY_GROUP.step(r.name)]),
  ];
  for (const [user = '', group = ''] of identities) {
    assert.equal(await can(user, group, '*', '*', '--all-namespaces'), 'no', `${group} is no cluster admin`);
    assert.equal(
      await can(user, group, 'get', 'secrets', '-n', 'kube-system'),
      'no',
      `${group} reads no Secrets outside its namespaces`,
    );
    assert.equal(await can(user, group, 'delete', 'namespaces'), 'no', `${group} deletes no namespace`);
  }
  assert.equal(
    await can(
      IDENTITY_USER.step('resolve'),
      IDENTITY_GROUP.step('resolve'),
      'create',
      'configmaps',
      '-n',
      NAMESPACES.system,
    ),
    'yes',
  );
  assert.equal(
    await can(
      IDENTITY_USER.step('rollout'),
      IDENTITY_GROUP.step('rollout'),
      'create',
      'applications.argoproj.io',
      '-n',
      NAMESPACES.argocd,
    ),
    'yes',
  );
  assert.equal(
    await can(
      IDENTITY_USER.step('snapshot'),
      IDENTITY_GROUP.step('snapshot'),
      'create',
      'applications.argoproj.io',
      '-n',
      NAMESPACES.argocd,
    ),
    'no',
  );
});
