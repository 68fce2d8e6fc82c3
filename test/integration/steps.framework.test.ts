// The step framework against the real API server: stalls are written through the owning
// condition and summarised into Stalled, the summary conditions have exactly one writer, a
// step can drop a condition it owns, a new step row is routed and dispatched while another
// step's function refuses it, and no report, however long, wedges the runtime.
import { test, beforeEach, after } from 'node:test';
import assert from 'node:assert/strict';
import { CONDITION, FIELD_MANAGER, SUMMARY_CONDITIONS } from '../../shared/api/constants.ts';
import { StalledError, StepNotRoutedError } from '../../shared/errors.ts';
import type { ApplyOptions, KubePort, WritableObject } from '../../shared/kube/port.ts';
import type { Kind, RuntimeObject } from '../../shared/kube/kinds.ts';
import { encodeWorkItem, runtimeGroup } from '../../shared/queue/workItem.ts';
import { createDispatcher } from '../../shared/steps/dispatch.ts';
import { runResolve } from '../../shared/steps/resolve/index.ts';
import { STEP_TABLE, WAKE, type StepRow } from '../../shared/steps/table.ts';
import type { StepRunner } from '../../shared/look/contract.ts';
import { MESSAGE_LIMIT_BYTES, byteLength } from '../../shared/status/message.ts';
import { stepKube, startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { captureLogger } from '../../harness/logs.ts';
import { RecordingProducer } from '../helpers/recordingProducer.ts';
import { condition, createRuntime, deleteRuntime, ensureCrds, getRuntime, waitFor } from '../../harness/runtime.ts';
import { dispatchDeps, resolveItem, runResolveOnce } from '../../harness/steps.ts';

beforeEach(async () => {
  await ensureCrds();
  await deleteRuntime();
});
after(deleteRuntime);

const valid = { aicrVersion: 'v0.11.1', criteria: { service: 'eks' } };

function delivery(body: string, id = 'm-1') {
  return { id, group: 'g', dedupId: id, body, receiveCount: 1, sentAt: 0 };
}

/** Condition types each field manager owns, read from the object's managedFields. */
/** The condition types among `types` that are not the summary's. */
function domainOwned(types: readonly string[] | undefined): string[] {
  return (types ?? []).filter((t) => !(SUMMARY_CONDITIONS as readonly string[]).includes(t));
}

function conditionOwners(rt: RuntimeObject | undefined): Record<string, string[]> {
  const entries =
    (
      rt?.metadata as {
        managedFields?: {
          manager: string;
          subresource?: string;
          fieldsV1?: { 'f:status'?: { 'f:conditions'?: Record<string, unknown> } };
        }[];
      }
    ).managedFields ?? [];
  const out: Record<string, string[]> = {};
  for (const e of entries) {
    const keys = Object.keys(e.fieldsV1?.['f:status']?.['f:conditions'] ?? {}).flatMap((k) =>
      k.startsWith('k:') ? [(JSON.parse(k.slice(2)) as { type: string }).type] : [],
    );
    if (keys.length > 0) out[e.manager] = keys.sort();
  }
  return out;
}

test('COND-2 a stalled error writes the owning condition and Stalled=True with its reason and message', async () => {
  const rt = await createRuntime(valid);
  const producer = new RecordingProducer();
  const message = 'minting an ecr token failed: the role may not call ecr:GetAuthorizationToken';
  const failing: StepRunner = () => Promise.reject(new StalledError('RegistryCredentialsUnavailable', message));
  const dispatch = createDispatcher({ resolve: failing });
  const result = await dispatch(
    delivery(encodeWorkItem(resolveItem(rt.metadata.uid))),
    dispatchDeps(stepKube('resolve'), captureLogger().log, producer),
  );
  assert.equal(result?.writes, 1, 'the step condition with the summary, in one apply');
  const after = await getRuntime();
  assert.deepEqual(
    [condition(after, 'Resolved')?.status, condition(after, 'Resolved')?.reason],
    ['False', 'RegistryCredentialsUnavailable'],
  );
  assert.deepEqual(
    [condition(after, 'Stalled')?.status, condition(after, 'Stalled')?.reason, condition(after, 'Stalled')?.message],
    ['True', 'RegistryCredentialsUnavailable', message],
  );
  assert.equal(condition(after, 'Reconciling')?.status, 'True', 'this stall retries by itself');
  assert.equal(producer.sent.length, 1, 'and a retry is scheduled');
  assert.equal(producer.sent[0]?.delayMs, 10_000);
});

test("COND-1 Ready, Reconciling and Stalled travel in the writing step's own apply, beside its condition", async () => {
  const rt = await createRuntime(valid);
  assert.equal(
    (await runResolveOnce(resolveItem(rt.metadata.uid), { kube: stepKube('resolve'), log: captureLogger().log }))
      .writes,
    1,
  );
  const after = await getRuntime();
  assert.deepEqual(conditionOwners(after), {
    [FIELD_MANAGER.resolve]: ['Ready', 'Reconciling', 'Resolved', 'Stalled'],
  });
  assert.equal(after?.status?.observedGeneration, after?.metadata.generation);
});

test('a new step row is routed by the forwarder, dispatched, may drop a condition it owns, and is refused by another step function', async () => {
  // A throw-away step that owns EngineAvailable (no real step writes it yet); the message the test
  // sends it drops it. Told by the message, not by counting runs: a run that lost a write race to
  // resolve's status is run again, and must report the same.
  const probe: StepRow = {
    name: 'probe',
    description: 'test only',
    queue: 'probe',
    owns: [CONDITION.engineAvailable],
    fieldManager: 'aicr-test-probe',
    timeoutSeconds: 10,
    wakesOn: [WAKE.runtimeChange],
    kube: [],
    aws: { description: 'test only' },
  };
  const DROP = 'drop-your-condition';
  const runProbe: StepRunner = (ctx) =>
    Promise.resolve({
      conditions:
        ctx.item.cause === DROP
          ? []
          : [{ type: CONDITION.engineAvailable, status: 'True', reason: 'EngineReady', message: 'probe' }],
    });
  const table = [...STEP_TABLE, probe];
  // The throw-away step has no identity of its own in the chart's RBAC; it borrows resolve's.
  const cp = startCapturedControlPlane({
    table,
    runners: { resolve: runResolve, probe: runProbe },
    kubeFor: () => stepKube('resolve'),
  });
  try {
    const rt = await createRuntime(valid);
    const seen = await waitFor('probe and resolve reported', async () => {
      const r = await getRuntime();
      return condition(r, 'EngineAvailable') && condition(r, 'Resolved') && condition(r, 'Ready') ? r : undefined;
    });
    assert.equal(condition(seen, 'EngineAvailable')?.reason, 'EngineReady');
    // Besides its own condition it may hold the summary, which travels in its apply.
    assert.deepEqual(domainOwned(conditionOwners(seen)['aicr-test-probe']), ['EngineAvailable']);
    // A second change runs the probe again; it reports nothing it owns, and its condition goes.
    await cp.queue.send({
      step: 'probe',
      group: runtimeGroup(rt.metadata.uid),
      dedupId: 'again',
      body: encodeWorkItem({ v: 1, step: 'probe', runtime: { name: 'cluster', uid: rt.metadata.uid }, cause: DROP }),
    });
    const dropped = await waitFor('EngineAvailable dropped', async () => {
      const r = await getRuntime();
      return condition(r, 'EngineAvailable') ? undefined : r;
    });
    assert.deepEqual(
      domainOwned(conditionOwners(dropped)['aicr-test-probe']),
      [],
      'the probe owns no condition of its own any more',
    );
    assert.equal(condition(dropped, 'Resolved')?.reason, 'Resolving', 'other steps keep theirs');
  } finally {
    cp.stop();
    await cp.running;
  }
  // The resolve function does not run the probe: it refuses the message loudly.
  const resolveOnly = createDispatcher({ resolve: runResolve }, table);
  const { log, records } = captureLogger();
  const body = encodeWorkItem({ v: 1, step: 'probe', runtime: { name: 'cluster', uid: 'u' }, cause: 'test' });
  await assert.rejects(
    resolveOnly(delivery(body), dispatchDeps(stepKube('resolve'), log, new RecordingProducer())),
    StepNotRoutedError,
  );
  const line = records().find((r) => r['message'] === 'message for a step this function does not run');
  assert.equal(line?.['level'], 'ERROR');
  assert.equal(line?.['step'], 'probe');
});

test('a message over the API limit is written cut to fit, and the runtime is not wedged', async () => {
  const rt = await createRuntime(valid);
  // A step reporting more than a condition can hold: four 10 KB field paths, say.
  const huge = `spec.components: ${['A', 'B', 'C', 'D'].map((c) => c.repeat(10_000)).join(', ')}`;
  const verbose: StepRunner = () =>
    Promise.resolve({
      conditions: [{ type: CONDITION.resolved, status: 'False', reason: 'InvalidSpec', message: huge }],
    });
  const result = await createDispatcher({ resolve: verbose })(
    delivery(encodeWorkItem(resolveItem(rt.metadata.uid))),
    dispatchDeps(stepKube('resolve'), captureLogger().log, new RecordingProducer()),
  );
  assert.equal(result?.writes, 1);
  const after = await getRuntime();
  const resolved = condition(after, 'Resolved');
  assert.equal(resolved?.reason, 'InvalidSpec');
  assert.ok(byteLength(resolved?.message ?? '') <= MESSAGE_LIMIT_BYTES);
  assert.match(resolved?.message ?? '', /^spec\.components: A+.* … \(\d+ more bytes cut\)$/s);
  assert.equal(condition(after, 'Stalled')?.message, resolved?.message, 'Stalled carries the same cut message');
  assert.equal(after?.status?.observedGeneration, after?.metadata.generation, 'the current generation is reported');
});

test('a status write the API server refuses (422) is reported as the control plane bug it is, not retried', async () => {
  const rt = await createRuntime(valid);
  const kube = stepKube('resolve');
  let corrupted = false;
  // Corrupts the step's first write, as a bug in a step's status would.
  const buggy: KubePort = Object.assign(Object.create(kube) as KubePort, {
    applyStatus: <T>(kind: Kind<T>, obj: WritableObject, opts: ApplyOptions): Promise<T> => {
      if (corrupted || opts.fieldManager !== FIELD_MANAGER.resolve) return kube.applyStatus(kind, obj, opts);
      corrupted = true;
      const status = obj['status'] as { conditions: Record<string, unknown>[] };
      const conditions = status.conditions.map((c) => ({ ...c, status: 'Maybe' }));
      return kube.applyStatus(kind, { ...obj, status: { ...status, conditions } }, opts);
    },
  });
  const producer = new RecordingProducer();
  const { log, records } = captureLogger();
  await createDispatcher({ resolve: runResolve })(
    delivery(encodeWorkItem(resolveItem(rt.metadata.uid))),
    dispatchDeps(buggy, log, producer),
  );
  const after = await getRuntime();
  assert.equal(condition(after, 'Resolved')?.reason, 'StatusWriteRefused');
  assert.match(
    condition(after, 'Resolved')?.message ?? '',
    /http 422 on status\.conditions\[0\]\.status.*control plane bug/,
  );
  assert.equal(condition(after, 'Stalled')?.status, 'True');
  assert.equal(producer.sent.length + producer.dead.length, 0, 'nothing is retried');
  assert.ok(records().some((r) => r['message'] === 'step failed' && r['errorKind'] === 'status-write-refused'));
});
