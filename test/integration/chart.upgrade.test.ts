// `helm upgrade` from the chart main shipped before deletion, drift and validation came in
// (PREVIOUS_CHART) to this one, in place on the test cluster: a runtime with its status and a
// rollout that the earlier CRDs stored read back through this control plane's schemas.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { CHART } from '../../shared/api/constants.ts';
import { ClusterRuntimeSchema, ClusterRuntimeStatusSchema } from '../../shared/api/clusterRuntime.ts';
import { parseRollout } from '../../shared/rollout/rules/rolloutObject.ts';
import { chartValueArgs, ensureChart, helm, installChart } from '../../harness/chart.ts';
import { testEnv } from '../../harness/env.ts';
import { kubectlApply } from '../../harness/kubectlApply.ts';
import { deleteRuntime, ensureCrds, kubectl } from '../../harness/runtime.ts';

/** The last commit whose chart landed before the deletion, drift and validation work. */
const PREVIOUS_CHART = 'ba9276668d6545e637cc24ee1f4b55d6fa2c85d1';
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const ROLLOUT = 'aicr-rollout-0123456789abcdef-up';
let dir = '';

function previousChart(): string {
  dir = mkdtempSync(join(tmpdir(), 'aicr-chart-'));
  const tar = execFileSync('git', ['-C', REPO, 'archive', PREVIOUS_CHART, 'infra/chart']);
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  return join(dir, 'infra/chart');
}

function exampleThen(): Record<string, unknown> {
  return parse(
    execFileSync('git', ['-C', REPO, 'show', `${PREVIOUS_CHART}:examples/clusterruntime.yaml`], { encoding: 'utf8' }),
  ) as Record<string, unknown>;
}

async function getJson(kind: string, name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await kubectl('get', kind, name, '-o', 'json')) as Record<string, unknown>;
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
});

after(async () => {
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await ensureChart();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the chart upgrades in place from the previous version, and a runtime, its status and a rollout stored under it read back with this version's schemas", async () => {
  await helm(
    'upgrade',
    '--install',
    CHART.release,
    previousChart(),
    '-n',
    CHART.namespace,
    '--server-side=true',
    '--force-conflicts',
    '--wait',
    '--timeout',
    '2m',
    '--kubeconfig',
    testEnv().KUBECONFIG,
    ...chartValueArgs(),
  );
  await kubectlApply(exampleThen());
  const condition = {
    type: 'Resolved',
    status: 'False',
    reason: 'Resolving',
    message: 'written before the upgrade',
    lastTransitionTime: '2026-12-01T00:00:00Z',
    observedGeneration: 1,
  };
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status: { observedGeneration: 1, conditions: [condition] } }),
  );
  const uid = ((await getJson('clusterruntime', 'cluster'))['metadata'] as { uid: string }).uid;
  await kubectlApply({
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'RuntimeRollout',
    metadata: { name: ROLLOUT },
    spec: {
      runtimeUID: uid,
      type: 'Upgrade',
      fromPlan: 'aicr-plan-aaaaaaaaaaaaaaaa',
      toPlan: 'aicr-plan-0123456789abcdef',
      steps: [
        { release: 'cert-manager', action: 'Upgrade', verdict: 'safe', fromVersion: 'v1.16.0', toVersion: 'v1.17.0' },
      ],
    },
  });

  await installChart();

  const stored = await getJson('clusterruntime', 'cluster');
  const runtime = ClusterRuntimeSchema.safeParse(stored);
  assert.ok(runtime.success, runtime.success ? '' : runtime.error.message);
  const status = ClusterRuntimeStatusSchema.parse(stored['status']);
  assert.deepEqual(
    status.conditions?.map((c) => [c.type, c.reason, c.message]),
    [['Resolved', 'Resolving', 'written before the upgrade']],
  );
  const rollout = parseRollout(await getJson('runtimerollout', ROLLOUT));
  assert.ok(rollout, "the rollout parses with this version's schema");
  assert.equal(rollout.spec.steps[0]?.release, 'cert-manager');
  // And this version's CRDs are the ones served now: status.validation, which only they know, is kept.
  await kubectl(
    'patch',
    'runtimerollout',
    ROLLOUT,
    '--subresource=status',
    '--type=merge',
    '-p',
    '{"status":{"validation":{"state":"Disabled"}}}',
  );
  assert.deepEqual(((await getJson('runtimerollout', ROLLOUT))['status'] as { validation?: unknown }).validation, {
    state: 'Disabled',
  });
});
