// GPU-1 and GPU-2 in the rollout step's control flow, on the in-memory API: a step of a release
// that disrupts GPU Nodes waits while protected Pods run on GPU Nodes, and starts once they end;
// a release that does not disrupt never waits; past maxWait the runtime is Stalled until the work
// ends or an approver records spec.disruption. Nothing is ever evicted.
import assert from 'node:assert/strict';
import test from 'node:test';
import { CONDITION } from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { runRollout } from '../../shared/steps/rollout/index.ts';
import type { StepReport } from '../../shared/look/contract.ts';
import { cluster, ctxOf, runtime, targetOf } from '../helpers/rolloutLook.ts';

type Kube = ReturnType<typeof cluster>;

const GUARDED = {
  actionTimeout: '10m',
  validation: { deployment: 'Disabled' },
  workloads: { selector: 'team=ml', priorityClasses: ['training-critical'], maxWait: '1h' },
};

const releasedOf = (report: StepReport) => report.conditions?.find((c) => c.type === CONDITION.released);

function gpuNode(kube: Kube, name: string, gpu = true): void {
  kube.put(KIND.node, { metadata: { name, labels: gpu ? { 'nvidia.com/gpu.present': 'true' } : {} } });
}

function pod(
  kube: Kube,
  name: string,
  {
    node = 'gpu-1',
    labels = {},
    priorityClassName,
    phase = 'Running',
  }: { node?: string; labels?: Record<string, string>; priorityClassName?: string; phase?: string } = {},
): void {
  kube.put(KIND.pod, {
    metadata: { name, namespace: 'ml', labels },
    spec: { nodeName: node, ...(priorityClassName ? { priorityClassName } : {}) },
    status: { phase },
  });
}

/** The runtime's rollout created and approved; the next look may start step 1. */
async function approved(kube: Kube, spec: Record<string, unknown>, target?: string): Promise<string> {
  await runRollout(ctxOf(kube, runtime(spec, target), '2026-12-02T08:00:00Z'));
  const [created] = (await kube.list(KIND.runtimeRollout)).items;
  assert.ok(created, 'a rollout was created');
  await kube.patch(KIND.runtimeRollout, created.metadata.name, undefined, {
    spec: { approval: { approvedBy: 'alice', approvedAt: '2026-12-02T08:00:30Z' } },
  });
  return created.metadata.name;
}

const written = (kube: Kube): number => kube.count('apply', KIND.application) + kube.count('patch', KIND.application);

test('GPU-1 a step of a release that disrupts GPU Nodes waits while protected Pods run on GPU Nodes, naming them; Pods elsewhere or unprotected do not count; it starts once they end', async () => {
  const kube = cluster();
  gpuNode(kube, 'gpu-1');
  gpuNode(kube, 'cpu-1', false);
  pod(kube, 'train-0', { labels: { team: 'ml' } });
  pod(kube, 'infer-0', { priorityClassName: 'training-critical' });
  pod(kube, 'on-cpu', { node: 'cpu-1', labels: { team: 'ml' } });
  pod(kube, 'batch', { labels: { team: 'other' } });
  pod(kube, 'done', { labels: { team: 'ml' }, phase: 'Succeeded' });
  await approved(kube, GUARDED);
  const first = await runRollout(ctxOf(kube, runtime(GUARDED), '2026-12-02T09:00:00Z'));
  const c = releasedOf(first);
  assert.equal(c?.reason, 'WaitingForWorkloads', c?.message);
  assert.match(
    c?.message ?? '',
    /waits before step 1 of 1, Install gpu-operator, a release that disrupts GPU Nodes: 2 protected Pods run on its 1 GPU Node: ml\/infer-0, ml\/train-0; it starts once they end \(waiting since 2026-12-02T09:00:00Z, at most 1h/,
  );
  assert.equal(written(kube), 0, 'nothing written while protected work runs');
  assert.equal(kube.count('delete', KIND.pod), 0, 'nothing evicted');
  assert.equal(first.recheckAfterMs, ctxOf(kube, runtime()).timings.engineRecheckMs);

  await kube.delete(KIND.pod, 'train-0', 'ml');
  await kube.delete(KIND.pod, 'infer-0', 'ml');
  const next = await runRollout(ctxOf(kube, runtime(GUARDED), '2026-12-02T09:10:00Z'));
  assert.equal(releasedOf(next)?.reason, 'RolloutProgressing', releasedOf(next)?.message);
  assert.equal(written(kube), 1, 'written once the work ended');
});

test('GPU-1 a release that does not disrupt GPU Nodes never waits, and without protected work set nothing waits', async () => {
  const kube = cluster('cert-manager');
  gpuNode(kube, 'gpu-1');
  pod(kube, 'train-0', { labels: { team: 'ml' } });
  await approved(kube, GUARDED, targetOf('cert-manager'));
  const report = await runRollout(ctxOf(kube, runtime(GUARDED, targetOf('cert-manager')), '2026-12-02T09:00:00Z'));
  assert.equal(releasedOf(report)?.reason, 'RolloutProgressing', releasedOf(report)?.message);
  assert.equal(kube.count('list', KIND.pod), 0, 'no Pods listed for a release that does not disrupt');

  const plain = cluster();
  gpuNode(plain, 'gpu-1');
  pod(plain, 'train-0', { labels: { team: 'ml' } });
  const spec = { validation: { deployment: 'Disabled' } };
  await approved(plain, spec);
  const unguarded = await runRollout(ctxOf(plain, runtime(spec), '2026-12-02T09:00:00Z'));
  assert.equal(releasedOf(unguarded)?.reason, 'RolloutProgressing', 'spec.workloads unset: no work is protected');
});

test('GPU-2 past maxWait the runtime is Stalled with WorkloadsStillRunning until an approver records spec.disruption; then the step starts, and nothing was evicted', async () => {
  const kube = cluster();
  gpuNode(kube, 'gpu-1');
  pod(kube, 'train-0', { labels: { team: 'ml' } });
  const name = await approved(kube, GUARDED);
  await runRollout(ctxOf(kube, runtime(GUARDED), '2026-12-02T09:00:00Z'));
  const stalled = await runRollout(ctxOf(kube, runtime(GUARDED), '2026-12-02T10:00:00Z'));
  const c = releasedOf(stalled);
  assert.equal(c?.reason, 'WorkloadsStillRunning', c?.message);
  assert.match(
    c?.message ?? '',
    /still after spec\.workloads\.maxWait \(1h, waiting since 2026-12-02T09:00:00Z\)\. Let the work end and it goes on by itself, or let it disrupt them with kubectl aicr approve --disrupt aicr-rollout-/,
  );
  const r = await kube.get(KIND.runtimeRollout, name);
  const conditions =
    (r?.['status'] as { conditions?: { type: string; status: string; reason: string }[] } | undefined)?.conditions ??
    [];
  assert.deepEqual(
    conditions.find((x) => x.type === CONDITION.stalled),
    { ...conditions.find((x) => x.type === CONDITION.stalled), status: 'True', reason: 'WorkloadsStillRunning' },
    'a person decides: the rollout is Stalled',
  );
  assert.equal(written(kube), 0);

  await kube.patch(KIND.runtimeRollout, name, undefined, {
    spec: { disruption: { approvedBy: 'alice', approvedAt: '2026-12-02T10:05:00Z' } },
  });
  const going = await runRollout(ctxOf(kube, runtime(GUARDED), '2026-12-02T10:06:00Z'));
  assert.equal(releasedOf(going)?.reason, 'RolloutProgressing', releasedOf(going)?.message);
  assert.equal(written(kube), 1, 'written with the go-ahead, the work still running');
  assert.equal(kube.count('delete', KIND.pod), 0, 'nothing evicted');
});
