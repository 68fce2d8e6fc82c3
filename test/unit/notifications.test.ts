// Notifications (NTF-1, NTF-2): which are due for each state of the runtime and its newest
// rollout, what they carry, and that the notify step tells each once: a message handled twice
// sends nothing more, and a send that fails is retried with the same key. The emulator's
// EventBridge is test/integration/notifications.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONDITION } from '../../shared/api/constants.ts';
import type { Condition } from '../../shared/api/condition.ts';
import { KIND, type RuntimeObject } from '../../shared/kube/kinds.ts';
import type { WritableObject } from '../../shared/kube/port.ts';
import {
  type Notice,
  type NoticeInput,
  type NoticeRecord,
  FRESH_RUNTIME_MS,
  dueNotices,
} from '../../shared/notifications/derive.ts';
import { NOTICE_KIND, NOTICE_SOURCE } from '../../shared/notifications/kinds.ts';
import type { NotificationSink } from '../../shared/notifications/sink.ts';
import { parseRollout, type RolloutObject } from '../../shared/rollout/rules/rolloutObject.ts';
import { runStep } from '../../shared/steps/run.ts';
import { notifyRunner } from '../../shared/steps/notify/index.ts';
import { stepRow } from '../../shared/steps/table.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import { captureLogger } from '../../harness/logs.ts';
import { memoryKube } from '../helpers/memoryKube.ts';
import { UID, targetOf } from '../helpers/rolloutLook.ts';

const NOW = new Date('2026-12-03T10:00:00Z');
const FROM = targetOf('gpu-operator');
const TO = targetOf('network-operator');
const at = (minutesAgo: number): string => new Date(NOW.getTime() - minutesAgo * 60_000).toISOString();

const cond = (type: string, status: 'True' | 'False', reason: string, message = `${reason} message`): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: at(1),
});

function rollout(name: string, status: Record<string, unknown>, spec: Record<string, unknown> = {}): RolloutObject {
  const r = parseRollout({
    metadata: { name, uid: `uid-${name}`, resourceVersion: '1', creationTimestamp: at(5), generation: 1 },
    spec: {
      runtimeUID: UID,
      type: 'Upgrade',
      fromPlan: FROM,
      toPlan: TO,
      deadline: '2026-12-04T10:00:00Z',
      steps: [
        {
          release: 'gpu-operator',
          action: 'Upgrade',
          verdict: 'safe',
          fromVersion: 'v25.3.0',
          toVersion: 'v25.10.0',
          valuesChanged: ['driver.secretValue'],
          valuesChangedCount: 1,
        },
        { release: 'network-operator', action: 'Install', verdict: 'manual', toVersion: '25.7.0' },
      ],
      ...spec,
    },
    status,
  });
  assert.ok(r, 'the rollout fits the schema');
  return r;
}
const waiting = (reason: string, currentStep = 0): Record<string, unknown> => ({
  currentStep,
  conditions: [cond(CONDITION.ready, 'False', reason, `rollout waits: ${reason}`)],
});

function input(over: Partial<NoticeInput> & { conditions?: Condition[]; activePlan?: string } = {}): NoticeInput {
  const { conditions = [], activePlan, ...rest } = over;
  return {
    runtime: {
      name: 'cluster',
      uid: UID,
      creationTimestamp: at(60),
      conditions,
      ...(activePlan ? { activePlan } : {}),
    },
    rollouts: [],
    record: { sent: 0, rollout: '', released: '', stalled: '' },
    cluster: 'gpu-east',
    now: NOW,
    ...rest,
  };
}

const only = (notices: readonly Notice[]): Notice => {
  assert.equal(notices.length, 1, `one notification, got ${notices.map((n) => n.kind).join(', ') || 'none'}`);
  return notices[0] as Notice;
};

test('NTF-1: a rollout awaiting approval tells its name, plans, each release with its verdict, the deadline and the exact approve command', () => {
  const r = rollout('aicr-rollout-1', waiting('AwaitingApproval'));
  const n = only(
    dueNotices(
      input({
        rollouts: [r],
        conditions: [cond(CONDITION.released, 'False', 'AwaitingApproval', 'rollout aicr-rollout-1 awaits approval')],
      }),
    ).notices,
  );
  assert.equal(n.kind, 'awaitingApproval');
  assert.equal(n.detailType, NOTICE_KIND.awaitingApproval.detailType);
  assert.equal(n.detail.rollout?.name, 'aicr-rollout-1');
  assert.equal(n.detail.rollout?.fromPlan, FROM);
  assert.equal(n.detail.rollout?.toPlan, TO);
  assert.equal(n.detail.rollout?.approveCommand, 'kubectl aicr approve aicr-rollout-1');
  assert.equal(n.detail.rollout?.deadline, '2026-12-04T10:00:00Z');
  assert.deepEqual(n.detail.rollout?.releases, [
    { release: 'gpu-operator', action: 'Upgrade', verdict: 'safe', fromVersion: 'v25.3.0', toVersion: 'v25.10.0' },
    { release: 'network-operator', action: 'Install', verdict: 'manual', toVersion: '25.7.0' },
  ]);
  assert.equal(n.detail.cluster, 'gpu-east');
  assert.deepEqual(n.detail.runtime, { name: 'cluster', uid: UID });
  assert.equal(n.detail.condition?.reason, 'AwaitingApproval');
  assert.match(n.detail.key, /^[0-9a-f]{32}$/);
  // Helm value paths (and so any value) stay out: only what an approver decides on goes out.
  assert.doesNotMatch(JSON.stringify(n.detail), /valuesChanged|secretValue/);
});

test('NTF-1: a rollout that ended failed, expired or revoked tells that, once per rollout', () => {
  for (const [outcome, kind] of [
    ['Failed', 'rolloutFailed'],
    ['Expired', 'rolloutExpired'],
    ['Revoked', 'rolloutRevoked'],
  ] as const) {
    const r = rollout('aicr-rollout-2', { outcome, conditions: [cond(CONDITION.ready, 'False', `Rollout${outcome}`)] });
    const first = dueNotices(
      input({ rollouts: [r], conditions: [cond(CONDITION.released, 'False', `Rollout${outcome}`)] }),
    );
    const n = only(first.notices);
    assert.equal(n.kind, kind);
    assert.equal(n.detail.rollout?.outcome, outcome);
    assert.equal(n.detail.rollout?.approveCommand, undefined, 'no approve command for an ended rollout');
    assert.equal(
      dueNotices(input({ rollouts: [r], record: first.record })).notices.length,
      0,
      `${outcome} is told once`,
    );
  }
});

test('NTF-1: a window wait and a workload wait are told when they start, again for the next step that waits, not on every look', () => {
  const win = dueNotices(
    input({
      rollouts: [rollout('r', waiting('OutsideMaintenanceWindow', 0))],
      conditions: [
        cond(CONDITION.released, 'False', 'OutsideMaintenanceWindow', 'waits before step 1: the window opens at 02:00'),
      ],
    }),
  );
  assert.equal(only(win.notices).kind, 'windowWait');
  assert.equal(only(win.notices).detail.condition?.message, 'waits before step 1: the window opens at 02:00');
  assert.equal(
    dueNotices(input({ rollouts: [rollout('r', waiting('OutsideMaintenanceWindow', 0))], record: win.record })).notices
      .length,
    0,
    'the same wait looked at again',
  );
  const moving = dueNotices(input({ rollouts: [rollout('r', waiting('RolloutProgressing', 0))], record: win.record }));
  assert.equal(moving.notices.length, 0);
  const work = dueNotices(
    input({ rollouts: [rollout('r', waiting('WaitingForWorkloads', 1))], record: moving.record }),
  );
  assert.equal(only(work.notices).kind, 'workloadWait');
  assert.equal(only(work.notices).detail.rollout?.currentStep, 1);
  const again = dueNotices(
    input({ rollouts: [rollout('r', waiting('OutsideMaintenanceWindow', 1))], record: work.record }),
  );
  assert.equal(only(again.notices).kind, 'windowWait', 'a window wait on a later step is a new wait');
  assert.notEqual(only(again.notices).detail.key, only(win.notices).detail.key);
});

test('NTF-1: Released is told for each plan the runtime is released on, also when it comes back to an earlier one', () => {
  const onA = dueNotices(input({ activePlan: FROM, conditions: [cond(CONDITION.released, 'True', 'Released')] }));
  assert.equal(only(onA.notices).kind, 'released');
  assert.equal(only(onA.notices).detail.condition?.status, 'True');
  assert.equal(
    dueNotices(
      input({ activePlan: FROM, conditions: [cond(CONDITION.released, 'True', 'Released')], record: onA.record }),
    ).notices.length,
    0,
  );
  const moving = dueNotices(
    input({
      activePlan: FROM,
      conditions: [cond(CONDITION.released, 'False', 'RolloutProgressing')],
      record: onA.record,
    }),
  );
  const back = dueNotices(
    input({ activePlan: FROM, conditions: [cond(CONDITION.released, 'True', 'Released')], record: moving.record }),
  );
  assert.equal(only(back.notices).kind, 'released');
  assert.notEqual(
    only(back.notices).detail.key,
    only(onA.notices).detail.key,
    'a new key: receivers must not drop it as a repeat',
  );
});

test('NTF-1: a runtime newly Stalled tells the reason with its cause and fix from the reason guide; a stall a rollout notification tells is not told twice', () => {
  const stalled = dueNotices(
    input({
      conditions: [cond(CONDITION.stalled, 'True', 'WorkloadsStillRunning', 'protected work still runs on gpu-node-1')],
    }),
  );
  const n = only(stalled.notices);
  assert.equal(n.kind, 'stalled');
  assert.equal(n.detail.stalled?.reason, 'WorkloadsStillRunning');
  assert.equal(n.detail.stalled?.message, 'protected work still runs on gpu-node-1');
  assert.match(n.detail.stalled?.fix ?? '', /approve --disrupt/);
  assert.ok((n.detail.stalled?.cause ?? '').length > 0);
  assert.equal(
    dueNotices(
      input({
        conditions: [cond(CONDITION.stalled, 'True', 'WorkloadsStillRunning', 'still')],
        record: stalled.record,
      }),
    ).notices.length,
    0,
    'the same stall',
  );
  const approval = dueNotices(
    input({
      rollouts: [rollout('r', waiting('AwaitingApproval'))],
      conditions: [cond(CONDITION.stalled, 'True', 'AwaitingApproval')],
    }),
  );
  assert.deepEqual(
    approval.notices.map((x) => x.kind),
    ['awaitingApproval'],
  );
});

test('NTF-2: a runtime older than notifications tells nothing of what it already shows; a new runtime tells its first states', () => {
  const shows = {
    rollouts: [rollout('r', waiting('AwaitingApproval'))],
    conditions: [cond(CONDITION.stalled, 'True', 'InventoryDrift')],
    record: undefined,
  };
  const old = dueNotices(input(shows));
  assert.equal(old.notices.length, 0);
  assert.equal(dueNotices(input({ ...shows, record: old.record })).notices.length, 0);
  const young = dueNotices(
    input({
      ...shows,
      runtime: {
        name: 'cluster',
        uid: UID,
        creationTimestamp: new Date(NOW.getTime() - FRESH_RUNTIME_MS / 2).toISOString(),
        conditions: shows.conditions,
      },
    }),
  );
  assert.deepEqual(young.notices.map((x) => x.kind).sort(), ['awaitingApproval', 'stalled']);
});

// The step on the in-memory API: status applies merge as server-side apply does for one manager's field.
function stage(runtimeStatus: Record<string, unknown>, rollouts: readonly RolloutObject[]) {
  const kube = memoryKube();
  const applyStatus = <T>(k: typeof KIND.clusterRuntime, obj: WritableObject): Promise<T> => {
    const stored = kube.store.get(`${k.plural}//${obj.metadata.name}`);
    assert.ok(stored);
    kube.put(k, { ...stored, status: { ...(stored as { status?: object }).status, ...(obj.status as object) } });
    return Promise.resolve(kube.store.get(`${k.plural}//${obj.metadata.name}`) as T);
  };
  const api = { ...kube, applyStatus } as typeof kube;
  kube.put(KIND.clusterRuntime, {
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: { name: 'cluster', uid: UID, resourceVersion: '1', creationTimestamp: at(1), generation: 1 },
    spec: {},
    status: runtimeStatus,
  });
  for (const r of rollouts) kube.put(KIND.runtimeRollout, r as unknown as Record<string, unknown>);
  return { kube: api, store: kube };
}

function recordingSink(fail: () => boolean): NotificationSink & { readonly got: Notice[][] } {
  const got: Notice[][] = [];
  return {
    called: 'a test sink',
    got,
    put: (notices) =>
      fail()
        ? Promise.resolve({ ok: false, cause: 'ServiceUnavailable, http 503' })
        : (got.push([...notices]), Promise.resolve({ ok: true })),
  };
}

const item = { v: 1 as const, step: 'notify', runtime: { name: 'cluster', uid: UID }, cause: 'MODIFIED', attempt: 1 };
const settings = () => ({ cluster: 'gpu-east' });

test('NTF-2: a duplicated message sends each notification once; status.notifications records what was told', async () => {
  const { kube, store } = stage({ conditions: [cond(CONDITION.released, 'False', 'AwaitingApproval')] }, [
    rollout('aicr-rollout-9', waiting('AwaitingApproval')),
  ]);
  const sink = recordingSink(() => false);
  const row = stepRow('notify');
  assert.ok(row);
  const deps = { kube, log: captureLogger().log, now: () => NOW, timings: DEFAULT_TIMINGS };
  for (let i = 0; i < 3; i++) await runStep(item, { row, runner: notifyRunner(() => sink, settings) }, deps);
  assert.equal(sink.got.flat().length, 1, 'sent once for three deliveries of one message');
  assert.equal(sink.got[0]?.[0]?.detail.rollout?.name, 'aicr-rollout-9');
  const rt = (await store.get(KIND.clusterRuntime, 'cluster')) as RuntimeObject;
  const record = (rt.status as { notifications?: NoticeRecord }).notifications;
  assert.deepEqual(record, { sent: 1, rollout: 'AwaitingApproval/aicr-rollout-9', released: '', stalled: '' });
  assert.equal((rt.status as { conditions?: unknown[] }).conditions?.length, 1, 'the conditions are left as they were');
});

test('NTF-2: a part of the status another writer left out of bounds costs nothing told: the record and the conditions still count, and nothing is sent again', async () => {
  const told = { sent: 1, rollout: 'AwaitingApproval/aicr-rollout-9', released: '', stalled: '' };
  // Over the schema's bounds: a snapshot wait longer than 2,048 characters, and one condition without its reason.
  const odd = {
    discovery: { snapshot: { waiting: 'w'.repeat(3000) } },
    notifications: told,
    conditions: [cond(CONDITION.released, 'False', 'AwaitingApproval'), { type: 'Odd', status: 'False' }],
  };
  const { kube } = stage(odd, [rollout('aicr-rollout-9', waiting('AwaitingApproval'))]);
  const sink = recordingSink(() => false);
  const row = stepRow('notify');
  assert.ok(row);
  await runStep(
    item,
    { row, runner: notifyRunner(() => sink, settings) },
    { kube, log: captureLogger().log, now: () => NOW, timings: DEFAULT_TIMINGS },
  );
  assert.equal(sink.got.flat().length, 0, 'what the record says was told is not told again');
});

test('NTF-1: an unreadable record of what was told leaves the rest of the status readable: a new runtime still tells it is Released, naming its active plan', async () => {
  const plan = 'aicr-plan-aaaaaaaa';
  const odd = {
    conditions: [cond(CONDITION.released, 'True', 'Released')],
    activePlan: plan,
    notifications: { sent: -1, rollout: '', released: '', stalled: '' },
  };
  const { kube, store } = stage(odd, []);
  const sink = recordingSink(() => false);
  const row = stepRow('notify');
  assert.ok(row);
  await runStep(
    item,
    { row, runner: notifyRunner(() => sink, settings) },
    { kube, log: captureLogger().log, now: () => NOW, timings: DEFAULT_TIMINGS },
  );
  assert.deepEqual(
    sink.got.flat().map((n) => n.kind),
    ['released'],
    'the conditions survive the bad record',
  );
  const rt = (await store.get(KIND.clusterRuntime, 'cluster')) as RuntimeObject;
  assert.equal(
    (rt.status as { notifications?: NoticeRecord }).notifications?.released,
    `Released/${plan}`,
    'and so does the active plan',
  );
});

test('NTF-2: EventBridge refusing is retried with backoff, logs no detail, and the later send carries the same key, once', async () => {
  const { kube } = stage({ conditions: [cond(CONDITION.released, 'False', 'RolloutFailed', 'step 2 failed')] }, [
    rollout('aicr-rollout-7', { outcome: 'Failed', conditions: [cond(CONDITION.ready, 'False', 'RolloutFailed')] }),
  ]);
  let down = true;
  const sink = recordingSink(() => down);
  const attempts: Notice[] = [];
  const watching: NotificationSink = { called: sink.called, put: (n) => (attempts.push(...n), sink.put(n)) };
  const logs = captureLogger();
  const row = stepRow('notify');
  assert.ok(row);
  const deps = { kube, log: logs.log, now: () => NOW, timings: DEFAULT_TIMINGS };
  const refused = await runStep(item, { row, runner: notifyRunner(() => watching, settings) }, deps);
  assert.equal(refused.backoff, true, 'retried with the backoff, not dead-lettered');
  assert.equal(sink.got.length, 0);
  const warn = logs.records().find((l) => l['message'] === 'notifications not sent; retrying with backoff');
  assert.ok(warn, 'the failure is logged');
  assert.equal(warn['cause'], 'ServiceUnavailable, http 503');
  assert.doesNotMatch(JSON.stringify(logs.lines), /step 2 failed/, 'no detail in the log line');
  down = false;
  const sent = await runStep(item, { row, runner: notifyRunner(() => watching, settings) }, deps);
  assert.equal(sent.backoff, undefined);
  await runStep(item, { row, runner: notifyRunner(() => watching, settings) }, deps);
  assert.equal(sink.got.flat().length, 1, 'taken once');
  assert.equal(attempts.length, 2, 'tried twice');
  assert.equal(attempts[0]?.detail.key, attempts[1]?.detail.key, 'the retry carries the same key');
  assert.equal(sink.got[0]?.[0]?.kind, 'rolloutFailed');
});

test('NTF-1: every kind has its own detail type under the one source', () => {
  const types = Object.values(NOTICE_KIND).map((k) => k.detailType);
  assert.equal(new Set(types).size, types.length);
  assert.equal(NOTICE_SOURCE, 'operator.aicr.run');
});

test('NTF-1: docs/notifications.md and the template name every kind, and the template routes each to the topic', async () => {
  const { readFileSync } = await import('node:fs');
  const doc = readFileSync(new URL('../../docs/notifications.md', import.meta.url), 'utf8');
  const template = readFileSync(new URL('../../serverless.yml', import.meta.url), 'utf8');
  for (const k of Object.values(NOTICE_KIND)) {
    assert.ok(doc.includes(`| \`${k.detailType}\` |`), `docs/notifications.md has a row for ${k.detailType}`);
    assert.ok(template.includes(`detail-type: ['${k.detailType}']`), `serverless.yml routes ${k.detailType}`);
  }
});
