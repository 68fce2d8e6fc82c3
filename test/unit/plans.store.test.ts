// Plans as ConfigMaps: the payload round-trips, big payloads are gzipped, a plan too big is
// refused whole, and a ConfigMap whose label, payload or digest disagree is unreadable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ANNOTATION, LABEL } from '../../shared/api/constants.ts';
import type { ConfigMapObject } from '../../shared/kube/kinds.ts';
import { planDigest, planName } from '../../shared/plans/digest.ts';
import type { Plan } from '../../shared/plans/plan.ts';
import type { Release } from '../../shared/plans/release.ts';
import { plansToRetire } from '../../shared/plans/retention.ts';
import {
  INLINE_LIMIT,
  PAYLOAD,
  PlanTooLargeError,
  planConfigMap,
  readPlanConfigMap,
} from '../../shared/plans/store.ts';

const REPO = 'registry.example:5000/aicr';

function release(name: string, order: number, values: Release['values'] = { a: 1 }): Release {
  return {
    name,
    namespace: name,
    order,
    chart: { repoURL: REPO, chart: name, version: '1.0.0' },
    values,
    dependsOn: [],
    manual: false,
    steps: [],
  };
}

function plan(releases: Release[], extra: Partial<Plan> = {}): Plan {
  return {
    digest: planDigest(releases),
    releases,
    runtimeUID: '11111111-2222-3333-4444-555555555555',
    recipe: 'kind: RecipeResult\n',
    ...extra,
  };
}

/** What the API server hands back for a written ConfigMap. */
function stored(p: Plan): ConfigMapObject {
  const cm = planConfigMap(p);
  return { ...cm, metadata: { ...cm.metadata, uid: 'u', resourceVersion: '1' } };
}

test('PLAN-1 a plan is a ConfigMap in aicr-system with role and schema labels, named and annotated by its digest', () => {
  const p = plan([release('cert-manager', 0), release('gpu-operator', 1)]);
  const cm = planConfigMap(p);
  assert.equal(cm.metadata.namespace, 'aicr-system');
  assert.equal(cm.metadata.name, planName(p.digest));
  assert.match(cm.metadata.name, /^aicr-plan-[0-9a-f]{16}$/);
  assert.equal(cm.metadata.labels[LABEL.role], 'plan');
  assert.equal(cm.metadata.labels[LABEL.schemaVersion], '1');
  assert.equal(cm.metadata.annotations[ANNOTATION.planDigest], p.digest);
  const read = readPlanConfigMap(stored(p));
  assert.ok(read.ok, read.ok ? '' : read.problem);
  assert.deepEqual(read.plan.releases, p.releases);
  assert.equal(read.plan.recipe, p.recipe);
});

test('PLAN-1 the digest covers only the release set: the recipe, owner and inputs are outside it, and key order does not matter', () => {
  const a = release('x', 0, { b: 1, a: { d: [1, 2], c: null } });
  const b = { ...release('x', 0, { a: { c: null, d: [1, 2] }, b: 1 }) };
  assert.equal(planDigest([a]), planDigest([b]));
  assert.notEqual(planDigest([a]), planDigest([{ ...a, values: { b: 2, a: { d: [1, 2], c: null } } }]));
  assert.notEqual(planDigest([a]), planDigest([{ ...a, order: 1 }]));
  const p1 = plan([a], { recipe: 'one' });
  const p2 = plan([b], { recipe: 'two', runtimeUID: 'other' });
  assert.equal(planConfigMap(p1).metadata.name, planConfigMap(p2).metadata.name);
});

test('a payload over the inline limit is gzipped into binaryData and reads back the same', () => {
  // Repetitive values compress well: big inline, small gzipped.
  const big = Object.fromEntries(
    Array.from({ length: 4000 }, (_, i) => [`key${i}`, 'a fairly repetitive value '.repeat(4)]),
  );
  const p = plan([release('kube-prometheus-stack', 0, big)]);
  const cm = planConfigMap(p);
  assert.ok(JSON.stringify(big).length > INLINE_LIMIT);
  assert.equal(cm.data, undefined);
  assert.ok(cm.binaryData?.[`${PAYLOAD.releases}.gz`]);
  const read = readPlanConfigMap(stored(p));
  assert.ok(read.ok);
  assert.deepEqual(read.plan.releases[0]?.values, big);
});

test('a plan over the size limit is refused whole, naming the largest values', () => {
  // Random text does not compress: well over the limit even gzipped.
  const huge = { blob: randomBytes(700 * 1024).toString('base64') };
  const p = plan([release('small', 0), release('huge-one', 1, huge)]);
  assert.throws(
    () => planConfigMap(p),
    (err: unknown) =>
      err instanceof PlanTooLargeError &&
      /over the 900 KiB a plan may hold; the largest Helm values are huge-one's/.test(err.message),
  );
});

test('PLAN-3 a plan whose schema label, payload or digest disagree is unreadable, and says which', () => {
  const p = plan([release('a', 0)]);
  const cm = stored(p);
  const withLabel = (v: string): ConfigMapObject => ({
    ...cm,
    metadata: { ...cm.metadata, labels: { ...cm.metadata.labels, [LABEL.schemaVersion]: v } },
  });
  const problem = (c: ConfigMapObject): string => {
    const r = readPlanConfigMap(c);
    assert.equal(r.ok, false);
    return r.ok ? '' : r.problem;
  };
  assert.match(problem(withLabel('2')), /unsupported plan schema version label "2"/);
  assert.match(problem({ ...cm, data: { ...cm.data, [PAYLOAD.releases]: '{not json' } }), /releases\.json is not JSON/);
  assert.match(problem({ ...cm, data: { ...cm.data, [PAYLOAD.releases]: '[{"name":"a"}]' } }), /is not a release set/);
  const edited = JSON.stringify([{ ...release('a', 0), values: { a: 2 } }]);
  assert.match(
    problem({ ...cm, data: { ...cm.data, [PAYLOAD.releases]: edited } }),
    /does not match the digest of its releases/,
  );
  assert.match(problem({ ...cm, metadata: { ...cm.metadata, labels: {} } }), /is not a plan/);
});

test('PLAN-8 retention keeps the newest plans and never counts or removes the ones in use', () => {
  const at = (name: string, minute: number): ConfigMapObject => ({
    metadata: {
      name,
      uid: name,
      resourceVersion: '1',
      creationTimestamp: `2026-11-30T10:${String(minute).padStart(2, '0')}:00Z`,
    },
  });
  const plans = [
    at('p-active', 0),
    at('p1', 1),
    at('p2', 2),
    at('p-pinned', 3),
    at('p3', 4),
    at('p4', 5),
    at('p-target', 6),
  ];
  const inUse = new Set(['p-active', 'p-pinned', 'p-target']);
  assert.deepEqual(plansToRetire(plans, inUse, 2).sort(), ['p1', 'p2']);
  assert.deepEqual(plansToRetire(plans, inUse, 10), []);
  assert.deepEqual(plansToRetire(plans, new Set(plans.map((p) => p.metadata.name)), 1), []);
});
