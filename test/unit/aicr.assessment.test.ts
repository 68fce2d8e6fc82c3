// The assessment stage (JOB-8, TRN-1) without a cluster: reading upgrade-check's JSON verdicts,
// the command it runs, which AICR versions have it, how verdicts become steps, and runStage
// collecting an exit-2 report as an answer while other exits count toward the three-run bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  assessmentArgs,
  assessmentStage,
  parseVerdicts,
  recipeDigest,
} from '../../shared/rollout/io/assessmentStage.ts';
import { FAILED_RUNS_BOUND, runStage } from '../../shared/aicr/runStage.ts';
import { assessmentOutputName } from '../../shared/aicr/stages.ts';
import type { KubePort, WritableObject } from '../../shared/kube/port.ts';
import type { Kind } from '../../shared/kube/kinds.ts';
import { assess } from '../../shared/rollout/rules/assess.ts';
import { hasUpgradeCheck, judgementOf } from '../../shared/rollout/rules/verdicts.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import type { Release } from '../../shared/plans/release.ts';

const REPORT = JSON.stringify({
  components: [
    { name: 'gpu-operator', verdict: 'safe' },
    { name: 'network-operator', verdict: 'blocked', reason: 'identity-changed' },
    { name: 'kai-scheduler', verdict: 'unversioned' },
  ],
  summary: { failing: 2 },
});

test('JOB-8 upgrade-check JSON reads as a verdict per component; anything else names what is wrong', () => {
  const r = parseVerdicts(REPORT);
  assert.ok(r.ok);
  assert.deepEqual(r.output.get('network-operator'), { verdict: 'blocked', reason: 'identity-changed' });
  assert.equal(r.output.get('gpu-operator')?.verdict, 'safe');
  assert.match(parseVerdicts(undefined).ok ? '' : 'wrote no JSON', /no JSON/);
  const bad = parseVerdicts('{"components":[{"name":"a","verdict":"maybe"}]}');
  assert.ok(!bad.ok && /components\.0\.verdict/.test(bad.problem));
  const notJson = parseVerdicts('table output');
  assert.ok(!notJson.ok && /not JSON/.test(notJson.problem));
});

test('JOB-8 the run compares the two recipe copies beside it, in JSON, into its own ConfigMap', () => {
  assert.deepEqual(assessmentArgs('abc'), [
    'upgrade-check',
    '--from',
    'cm://aicr-jobs/aicr-assessment-abc-from',
    '--to',
    'cm://aicr-jobs/aicr-assessment-abc-to',
    '-t',
    'json',
    '-o',
    'cm://aicr-jobs/aicr-assessment-abc',
  ]);
});

test('JOB-8 only AICR releases from the first with upgrade-check run it', () => {
  assert.equal(hasUpgradeCheck('v0.11.1'), false);
  assert.equal(hasUpgradeCheck('v0.16.3'), false);
  assert.equal(hasUpgradeCheck('v0.17.0'), true);
  assert.equal(hasUpgradeCheck('v1.1.0'), true);
});

const release = (name: string, version = '2.0.0'): Release => ({
  name,
  namespace: name,
  order: 0,
  dependsOn: [],
  values: {},
  manual: false,
  steps: [],
  chart: { repoURL: 'oci://r', chart: name, version },
});
const older = (name: string): Release => release(name, '1.0.0');

test('TRN-1 a blocked verdict blocks the move naming the release; safe and unversioned become step verdicts', () => {
  const r = parseVerdicts(REPORT);
  assert.ok(r.ok);
  const names = ['gpu-operator', 'network-operator', 'kai-scheduler'];
  const inventory = new Map(names.map((n) => [n, older(n)]));
  const blocked = assess(
    inventory,
    names.map((n) => release(n)),
    (n) => judgementOf(r.output, n),
  );
  assert.ok(!blocked.ok);
  assert.deepEqual(
    blocked.blocked.map((b) => b.release),
    ['network-operator'],
  );
  assert.match(blocked.blocked[0]?.why ?? '', /blocked \(identity-changed\)/);
  const kept = new Map(['gpu-operator', 'kai-scheduler'].map((n) => [n, older(n)]));
  const fine = assess(
    kept,
    ['gpu-operator', 'kai-scheduler', 'other'].map((n) => release(n)),
    (n) => judgementOf(r.output, n),
  );
  assert.ok(fine.ok);
  assert.deepEqual(
    fine.steps.map((s) => [s.release, s.verdict]),
    [
      ['gpu-operator', 'safe'],
      ['kai-scheduler', 'unknown'],
      ['other', 'unknown'],
    ],
  );
  // A release the move removes is held to its verdict too.
  assert.ok(!assess(inventory, [release('gpu-operator')], (n) => judgementOf(r.output, n)).ok);
});

type Obj = WritableObject & { metadata: WritableObject['metadata'] & { labels?: Record<string, string> } };

/** Objects by plural/namespace/name; label selectors of `k=v` and `k!=v` terms. */
function memoryKube(): KubePort & { store: Map<string, Obj> } {
  const store = new Map<string, Obj>();
  const key = (k: Kind<unknown>, ns: string | undefined, name: string): string => `${k.plural}/${ns ?? ''}/${name}`;
  const matches = (o: Obj, selector = ''): boolean =>
    selector
      .split(',')
      .filter(Boolean)
      .every((term) => {
        const [k = '', v] = term.split(/!?=/);
        const actual = o.metadata.labels?.[k];
        if (v === undefined) return actual !== undefined;
        return term.includes('!=') ? actual !== v : actual === v;
      });
  const unused = (): Promise<never> => Promise.reject(new Error('not used'));
  return {
    store,
    get: <T>(k: Kind<T>, name: string, ns?: string) => Promise.resolve(store.get(key(k, ns, name)) as T | undefined),
    list: <T>(k: Kind<T>, sel?: { namespace?: string; labelSelector?: string }) =>
      Promise.resolve({
        items: [...store.entries()]
          .filter(([kk, o]) => kk.startsWith(`${k.plural}/${sel?.namespace ?? ''}/`) && matches(o, sel?.labelSelector))
          .map(([, o]) => o as T),
      }) as never,
    create: <T>(k: Kind<T>, obj: WritableObject) => {
      store.set(key(k, obj.metadata.namespace, obj.metadata.name), structuredClone(obj) as Obj);
      return Promise.resolve(obj as T);
    },
    patch: <T>(k: Kind<T>, name: string, ns: string | undefined, p: Record<string, unknown>) => {
      const o = store.get(key(k, ns, name));
      if (!o) return Promise.reject(new Error('not found'));
      const meta = (p.metadata ?? {}) as { labels?: Record<string, string>; annotations?: Record<string, string> };
      const merged = {
        ...o,
        metadata: {
          ...o.metadata,
          labels: { ...o.metadata.labels, ...meta.labels },
          annotations: { ...(o.metadata.annotations as object), ...meta.annotations },
        },
      };
      store.set(key(k, ns, name), merged);
      return Promise.resolve(merged as T);
    },
    delete: (k: Kind<unknown>, name: string, ns?: string) => Promise.resolve(store.delete(key(k, ns, name))),
    watch: unused,
    update: unused,
    apply: unused,
    applyStatus: unused,
  };
}

const INPUTS = {
  runtimeUID: 'u1',
  version: 'v0.17.0',
  image: 'aicr:stand-in',
  fromRecipe: recipeDigest('from'),
  toRecipe: recipeDigest('to'),
};

/** Ends the newest Job as AICR would: Failed with an exit code (and a report written for exit 2), or Complete. */
function finish(kube: ReturnType<typeof memoryKube>, exitCode: number, report?: string): void {
  const [k, job] = [...kube.store.entries()].filter(([kk]) => kk.startsWith('jobs/')).at(-1) ?? [];
  if (!k || !job) throw new Error('no Job');
  const type = exitCode === 0 ? 'Complete' : 'Failed';
  kube.store.set(k, {
    ...job,
    status: { conditions: [{ type, status: 'True', lastTransitionTime: '2026-11-30T10:00:00Z' }] },
  });
  const name = job.metadata.name;
  const pod = {
    metadata: { name: `${name}-pod`, namespace: 'aicr-jobs', labels: { 'job-name': name } },
    status: {
      containerStatuses: [
        {
          name: 'aicr',
          state: {
            terminated: {
              exitCode,
              message: exitCode === 0 || exitCode === 2 ? '' : '[cli] command failed: error=[INTERNAL] boom exitCode=8',
            },
          },
        },
      ],
    },
  };
  kube.store.set(`pods/aicr-jobs/${name}-pod`, pod);
  const hash = job.metadata.labels?.['operator.aicr.run/input'] ?? '';
  if (report !== undefined)
    kube.store.set(`configmaps/aicr-jobs/${assessmentOutputName(hash)}`, {
      metadata: { name: assessmentOutputName(hash), namespace: 'aicr-jobs' },
      data: { 'snapshot.yaml': report },
    });
}

test('JOB-8 exit 2 with a report is an answer, not a failure; other exits stall after three runs, and deleting the failed Jobs runs it again', async () => {
  const kube = memoryKube();
  const deps = {
    kube,
    now: () => new Date('2026-11-30T10:05:00Z'),
    timings: DEFAULT_TIMINGS,
    event: () => Promise.resolve(),
  };
  const job = (hash: string, run: number): WritableObject => ({
    metadata: {
      name: `aicr-assessment-${hash}-${run}`,
      namespace: 'aicr-jobs',
      labels: { 'operator.aicr.run/stage': 'assessment', 'operator.aicr.run/input': hash },
    },
  });
  const stage = assessmentStage(INPUTS, kube, job, { from: 'from: recipe', to: 'to: recipe' });
  assert.equal((await runStage(stage, deps)).state, 'waiting');
  assert.ok(
    [...kube.store.keys()].some((k) => k.endsWith('-from')) && [...kube.store.keys()].some((k) => k.endsWith('-to')),
    'both recipes placed beside the run',
  );
  for (let i = 0; i < FAILED_RUNS_BOUND; i++) {
    finish(kube, 8);
    const next = await runStage(stage, deps);
    assert.equal(next.state, i < FAILED_RUNS_BOUND - 1 ? 'waiting' : 'stalled');
  }
  const stalled = await runStage(stage, deps);
  assert.ok(
    stalled.state === 'stalled' &&
      stalled.reason === 'AICRStageStalled' &&
      /kubectl delete jobs -n aicr-jobs -l operator\.aicr\.run\/stage=assessment/.test(stalled.message),
  );
  for (const k of [...kube.store.keys()].filter((kk) => kk.startsWith('jobs/'))) kube.store.delete(k);
  assert.equal((await runStage(stage, deps)).state, 'waiting', 'deleting the failed Jobs lets it run again');
  finish(kube, 2, REPORT);
  const done = await runStage(stage, deps);
  assert.ok(done.state === 'done' && done.output.get('network-operator')?.verdict === 'blocked');
  assert.equal(
    [...kube.store.keys()].filter((k) => k.startsWith('jobs/')).length,
    0,
    'the answered run is deleted once read',
  );
});
