// Argo CD's repo-server and Redis restarted while a rollout runs: Argo CD loses its rendered
// manifests and its cache, reports ComparisonError or nothing for a while, and the rollout,
// which only reads what Argo CD reports, moves on by itself once they are back. Nobody acts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, NAMESPACES } from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { stringAt } from '../../shared/kube/fieldPath.ts';
import type { Release } from '../../shared/plans/release.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import { approve, awaitingRollout, clearRolloutStage, released, stopAndClear } from '../../harness/rollouts.ts';
import { createRuntime } from '../../harness/runtime.ts';
import { type Part, restart } from '../helpers/faults/restarts.ts';

const ROLLOUT_ONLY = STEP_TABLE.filter((r) => r.name === 'rollout');
const PARTS = ['argocd-repo-server', 'argocd-redis'] as const satisfies readonly Part[];
let cp: ReturnType<typeof startCapturedControlPlane>;
let runtimeUID = '';

const plan = (version: string): Release[] => [chartRelease('kilo', 0, version), chartRelease('lima', 1, version)];

async function rollTo(releases: Release[]): Promise<string> {
  const { name } = await storePlan(runtimeUID, releases);
  await target(name);
  await approve((await awaitingRollout(name)).metadata.name);
  return name;
}

const activeIs = (name: string, timeoutMs: number) =>
  released(`Released=True on ${name}`, (reason, message) => reason === 'Released' && message.includes(name), timeoutMs);

before(async () => {
  await clearRolloutStage();
  for (const name of ['kilo', 'lima']) for (const version of ['1.0.0', '1.1.0']) await pushChart(name, version);
  cp = startCapturedControlPlane({ timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 }, table: ROLLOUT_ONLY });
  runtimeUID = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
      actionTimeout: '5m',
      validation: { deployment: 'Disabled' },
    })
  ).metadata.uid;
  await activeIs(await rollTo(plan('1.0.0')), 180_000);
});

after(async () => {
  await stopAndClear(cp);
});

test("ADR-0009 ENG-1 Argo CD's repo-server and Redis restarted as an approved rollout starts: it finishes by itself once they are back, every release at its target", async () => {
  const name = await rollTo(plan('1.1.0'));
  // Both at once, each back only in a new Pod that is ready.
  await Promise.all(PARTS.map(restart));
  await activeIs(name, 300_000);
  for (const release of ['kilo', 'lima']) {
    const app = await stepKube('rollout').get(KIND.application, release, NAMESPACES.argocd);
    assert.equal(stringAt(app, 'status.sync.status'), 'Synced', `${release} synced`);
    assert.equal(app?.metadata.annotations?.[ANNOTATION.chartVersion], '1.1.0', `${release} at its target`);
    assert.equal(
      stringAt(app, 'status.sync.revision'),
      stringAt(app, 'spec.source.targetRevision'),
      `${release} synced at the digest it is pinned to`,
    );
    assert.equal(stringAt(app, 'status.health.status'), 'Healthy', `${release} healthy`);
  }
});
