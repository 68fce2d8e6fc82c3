// The drift check under load and at rest: how many Application events each drift check stood
// for while 1,000 Application updates arrive within a minute (the forwarder's coalescing), and
// the API requests one drift check makes on a quiet cluster, where the goal is reads only.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { NAMESPACES } from '../shared/api/constants.ts';
import { watchedBy } from '../shared/forwarder/watched.ts';
import { startLocalControlPlane } from '../shared/local/controlPlane.ts';
import { createLogger } from '../shared/observability/log.ts';
import type { Release } from '../shared/plans/release.ts';
import { runDriftCheck } from '../shared/steps/driftCheck/index.ts';
import { runStep } from '../shared/steps/run.ts';
import { RUNNERS } from '../shared/steps/runners.ts';
import { STEP_TABLE, stepRow } from '../shared/steps/table.ts';
import type { StepRunner } from '../shared/look/contract.ts';
import { DEFAULT_TIMINGS } from '../shared/timings.ts';
import { auditMark } from '../harness/audit.ts';
import { forwarderKube, stepKube } from '../harness/controlPlane.ts';
import { adminKubeConfig } from '../harness/env.ts';
import { chartRelease, pushChart, storePlan, target } from '../harness/rolloutStage.ts';
import { approve, awaitingRollout, clearApplications, clearRolloutStage, released } from '../harness/rollouts.ts';
import { createRuntime, deleteRuntime, kubectl } from '../harness/runtime.ts';
import { type RequestCounts, controlPlaneRequestsSince } from './requests.ts';

const RELEASES = 5;
const UPDATES = Number(process.env['BENCH_DRIFT_UPDATES'] ?? 1000);
const SECONDS = Number(process.env['BENCH_DRIFT_SECONDS'] ?? 60);
const STEPS = STEP_TABLE.filter((r) => r.name === 'rollout' || r.name === 'drift-check');
const silent = createLogger({ level: 'silent' });
const releases = (): Release[] => Array.from({ length: RELEASES }, (_, i) => chartRelease(`drift-${i}`, i, '1.0.0'));

export interface DriftFigures {
  readonly updates: number;
  readonly seconds: number;
  readonly applicationEvents: number;
  readonly driftChecks: number;
  readonly eventsPerDriftCheck: number;
  readonly quiet: { readonly writes: number; readonly requests: RequestCounts };
}

/** Spreads `updates` spec changes over the owned Applications evenly across `seconds`. */
async function updateApplications(updates: number, seconds: number): Promise<void> {
  const co = adminKubeConfig().makeApiClient(CustomObjectsApi);
  const names = releases().map((r) => r.name);
  const started = Date.now();
  // Each update leaves at its time, without waiting for the one before, so the rate holds on a slow API server.
  const inFlight: Promise<unknown>[] = [];
  for (let i = 0; i < updates; i++) {
    const due = started + (i * seconds * 1000) / updates;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    // spec.info is shown by Argo CD's UI and carries no release: news for the forwarder, no drift for the check.
    const body = { spec: { info: [{ name: 'bench', value: String(i) }] } };
    inFlight.push(
      co.patchNamespacedCustomObject(
        {
          group: 'argoproj.io',
          version: 'v1alpha1',
          namespace: NAMESPACES.argocd,
          plural: 'applications',
          name: names[i % names.length] ?? '',
          body,
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
  }
  await Promise.all(inFlight);
}

/** One drift check run on its own, as its own identity, after everything settled. */
async function quietCheck(uid: string): Promise<DriftFigures['quiet']> {
  const row = stepRow('drift-check');
  if (!row) throw new Error('drift-check is not in the step table');
  const mark = auditMark();
  const item = { v: 1 as const, step: 'drift-check', runtime: { name: 'cluster', uid }, cause: 'bench', attempt: 1 };
  const result = await runStep(
    item,
    { row, runner: runDriftCheck, table: STEPS },
    { kube: stepKube('drift-check'), log: silent, now: () => new Date(), timings: DEFAULT_TIMINGS },
  );
  return { writes: result.writes, requests: await controlPlaneRequestsSince(mark) };
}

export async function measureDrift(): Promise<DriftFigures> {
  await clearRolloutStage();
  for (const r of releases()) await pushChart(r.name, '1.0.0');
  let checks = 0;
  const counting: StepRunner = async (ctx) => {
    checks++;
    return await runDriftCheck(ctx);
  };
  const cp = startLocalControlPlane({
    kube: forwarderKube(),
    kubeFor: (step) => stepKube(step),
    log: silent,
    table: STEPS,
    runners: { ...RUNNERS, 'drift-check': counting },
  });
  // The drift check is what this phase measures; deployment validation has its own tests.
  const uid = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks' },
      validation: { deployment: 'Disabled' },
    })
  ).metadata.uid;
  const { name } = await storePlan(uid, releases());
  await target(name);
  await approve((await awaitingRollout(name)).metadata.name);
  await released(`Released on ${name}`, (reason) => reason === 'Released', 120_000);
  await cp.queue.idle({ timers: false });
  // Local mode makes one forwarder per watched kind, in the order watchedBy gives them.
  const apps = cp.forwarders[watchedBy(STEPS).findIndex((w) => w.id === 'application-specs')];
  const before = { events: (apps?.stats.enqueued ?? 0) + (apps?.stats.coalesced ?? 0), checks };
  const started = Date.now();
  await updateApplications(UPDATES, SECONDS);
  await new Promise((r) => setTimeout(r, 1000));
  await cp.queue.idle({ timers: false });
  const events = (apps?.stats.enqueued ?? 0) + (apps?.stats.coalesced ?? 0) - before.events;
  const runs = checks - before.checks;
  const seconds = (Date.now() - started) / 1000;
  cp.stop();
  await cp.running;
  const quiet = await quietCheck(uid);
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
  return {
    updates: UPDATES,
    seconds,
    applicationEvents: events,
    driftChecks: runs,
    eventsPerDriftCheck: Math.round((events / Math.max(1, runs)) * 10) / 10,
    quiet,
  };
}

export function driftSummary(d: DriftFigures): string {
  return [
    `drift check: ${d.updates} Application updates in ${d.seconds.toFixed(0)} s, ` +
      `${d.applicationEvents} Application events forwarded, ${d.driftChecks} drift checks: ` +
      `${d.eventsPerDriftCheck} events coalesced per drift check`,
    `API requests per drift check on a quiet cluster: ${d.quiet.writes} status writes, ` +
      `requests ${JSON.stringify(d.quiet.requests)}`,
  ].join('\n');
}
