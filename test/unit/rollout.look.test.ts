// One look of the rollout step reads each object once, on an in-memory API: however far the
// decision goes (here an approved rollout that reaches the validation gate), the configuration
// and the target plan are read once, and a look that changes nothing writes nothing.
import assert from 'node:assert/strict';
import test from 'node:test';
import { CONFIGURATION, CONDITION } from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { parseRollout } from '../../shared/rollout/rules/rolloutObject.ts';
import { STEP_WRITING } from '../../shared/rollout/rules/progress.ts';
import { nextLook, runRollout } from '../../shared/steps/rollout/index.ts';
import { periodicLook } from '../../shared/rollout/rules/released.ts';
import { TARGET, cluster, ctxOf, runtime } from '../helpers/rolloutLook.ts';

test('ENG-1 one look reads the configuration and the target plan once, even when the decision reaches the validation gate', async () => {
  const kube = cluster();
  const first = await runRollout(ctxOf(kube, runtime()));
  assert.match(
    first.conditions?.find((c) => c.type === CONDITION.released)?.reason ?? '',
    /AwaitingApproval/,
    'a rollout is created and waits for its approver',
  );
  const [created] = (await kube.list(KIND.runtimeRollout)).items;
  assert.ok(created, 'the rollout was created');
  await kube.patch(KIND.runtimeRollout, created.metadata.name, undefined, {
    spec: { approval: { approvedBy: 'alice', approvedAt: '2026-12-02T09:59:00Z' } },
  });
  kube.requests.clear();
  const second = await runRollout(ctxOf(kube, runtime()));
  assert.equal(
    second.conditions?.find((c) => c.type === CONDITION.released)?.reason,
    'ValidationUnavailable',
    'the approved rollout stops at the validation gate: validation is not installed',
  );
  assert.equal(kube.count('get', KIND.configMap, CONFIGURATION.name), 1, 'the configuration is read once');
  assert.equal(kube.count('get', KIND.configMap, TARGET), 1, 'the target plan is read once');
  assert.equal(kube.count('list', KIND.runtimeRollout), 1);
  assert.equal(kube.count('list', KIND.application), 1);
  assert.equal(
    kube.count('patch', KIND.application) + kube.count('apply', KIND.application),
    0,
    'nothing is written to Argo CD before validation can run',
  );
});

test('a second look that finds nothing changed writes nothing', async () => {
  const kube = cluster();
  await runRollout(ctxOf(kube, runtime()));
  kube.requests.clear();
  await runRollout(ctxOf(kube, runtime()));
  const writes = [...kube.requests.keys()].filter((at) => !at.startsWith('get ') && !at.startsWith('list '));
  assert.deepEqual(writes, [], 'the rollout waiting for approval is not written again');
});

/** A rollout created, approved by alice, and its first look after the approval run: step 1's Application written. */
async function approvedAndWritten(kube: ReturnType<typeof cluster>, rt: ReturnType<typeof runtime>): Promise<void> {
  await runRollout(ctxOf(kube, rt));
  const [created] = (await kube.list(KIND.runtimeRollout)).items;
  assert.ok(created, 'the rollout was created');
  await kube.patch(KIND.runtimeRollout, created.metadata.name, undefined, {
    spec: { approval: { approvedBy: 'alice', approvedAt: '2026-12-02T09:59:00Z' } },
  });
  await runRollout(ctxOf(kube, rt));
}

test("a step in flight is gated on the look's own listing of its Application, not a second read of it", async () => {
  const kube = cluster();
  const rt = runtime({ validation: { deployment: 'Disabled' } });
  await approvedAndWritten(kube, rt);
  assert.equal((await kube.list(KIND.application)).items.length, 1, 'the approved rollout wrote its one Application');
  kube.requests.clear();
  const third = await runRollout(ctxOf(kube, rt, '2026-12-02T10:00:05Z'));
  assert.equal(
    third.conditions?.find((c) => c.type === CONDITION.released)?.reason,
    'RolloutProgressing',
    'the step waits for Argo CD to report it',
  );
  assert.equal(kube.count('list', KIND.application), 1, 'the look lists the Applications once');
  assert.equal(kube.count('get', KIND.application), 0, 'and the gate reads the listed copy');
});

test('the looks many messages ask for only because time passes are one timer per idle period, never later than a look the step asked for', () => {
  const idle = 300_000;
  const at = (iso: string): Date => new Date(iso);
  const a = nextLook({}, undefined, idle, at('2026-12-04T10:00:10Z'));
  const b = nextLook({ recheckAfterMs: 900_000 }, 'window-x', idle, at('2026-12-04T10:04:59Z'));
  assert.equal(a.recheckKey, 'idle-2026-12-04T10:10:00.000Z');
  assert.equal(b.recheckKey, a.recheckKey, 'two looks in one period share the timer');
  assert.equal(a.recheckAfterMs, 590_000);
  assert.equal(b.recheckAfterMs, 301_000);
  const sooner = nextLook({ recheckAfterMs: 400_000 }, 'window-y', idle, at('2026-12-04T10:00:10Z'));
  assert.deepEqual(
    sooner,
    { recheckAfterMs: 400_000, recheckKey: 'window-y' },
    'a window opening before the idle timer is looked at when it opens',
  );
  assert.deepEqual(nextLook({ recheckAfterMs: 5_000 }, undefined, idle, at('2026-12-04T10:04:59Z')), {
    recheckAfterMs: 5_000,
  });
});

test('a step in flight looks again after the engine recheck, on a grid a quarter of it wide: the looks of one quarter share one timer, none comes more than a quarter late', () => {
  const at = (iso: string): Date => new Date(iso);
  const recheck = 30_000;
  const first = periodicLook(at('2026-12-04T10:00:01Z'), recheck);
  assert.deepEqual(first, { recheckAfterMs: 36_500, recheckKey: 'look-2026-12-04T10:00:37.500Z' });
  assert.equal(periodicLook(at('2026-12-04T10:00:07.500Z'), recheck).recheckKey, first.recheckKey);
  assert.notEqual(periodicLook(at('2026-12-04T10:00:08Z'), recheck).recheckKey, first.recheckKey);
  for (let ms = 0; ms < 20_000; ms += 1_234) {
    const { recheckAfterMs } = periodicLook(new Date(Date.parse('2026-12-04T10:00:00Z') + ms), recheck);
    assert.ok(recheckAfterMs >= recheck && recheckAfterMs <= recheck * 1.25, String(recheckAfterMs));
  }
});

/** The rollout's status as a control plane that died right after writing step 1's Application leaves it: recorded as being written. */
async function diedAfterWrite(kube: ReturnType<typeof cluster>): Promise<string> {
  const r = parseRollout((await kube.list(KIND.runtimeRollout)).items[0]);
  assert.ok(r?.status?.steps, 'the rollout, started');
  const steps = r.status.steps.map((s, i) => (i === 0 ? { ...s, reason: STEP_WRITING } : s));
  await kube.applyStatus(
    KIND.runtimeRollout,
    { metadata: { name: r.metadata.name }, status: { ...r.status, steps } },
    { fieldManager: 'test' },
  );
  kube.requests.clear();
  return r.metadata.name;
}

test('FLT-1 a step recorded as being written whose Application the look lists as written is recorded, not written again, so a control plane dying right after each write still moves on; one not written is written', async () => {
  const kube = cluster();
  const rt = runtime({ validation: { deployment: 'Disabled' } });
  await approvedAndWritten(kube, rt);
  const [app] = (await kube.list(KIND.application)).items;
  assert.ok(app, 'the approved rollout wrote its Application');

  const name = await diedAfterWrite(kube);
  await runRollout(ctxOf(kube, rt, '2026-12-02T10:00:05Z'));
  assert.equal(kube.count('apply', KIND.application), 0, 'not written again');
  const state = async (): Promise<string | undefined> =>
    parseRollout(await kube.get(KIND.runtimeRollout, name))?.status?.steps?.[0]?.reason;
  assert.equal(await state(), 'GateNotMet', 'recorded as written, waiting for Argo CD');

  await diedAfterWrite(kube);
  await kube.delete(KIND.application, app.metadata.name, app.metadata.namespace);
  await runRollout(ctxOf(kube, rt, '2026-12-02T10:00:06Z'));
  assert.equal(kube.count('apply', KIND.application), 1, 'a write that did not happen is made');
});
