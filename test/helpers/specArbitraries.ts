// Generators of ClusterRuntime and RuntimeRollout specs for the CRD/zod parity test. A spec is
// valid in every field but at most two, which take an edge value: a value at, just inside or
// just outside a bound, or a near miss (key case, script and length, UID shapes, durations
// around each minimum and maximum, plan digests, selection modes). One odd field per spec is
// what tells two validators apart: a spec wrong in many ways is refused by both for any reason.
import fc from 'fast-check';
import { MAX_COMPONENTS } from '../../shared/api/names.ts';
import { MAX_ROLLOUT_STEPS } from '../../shared/api/runtimeRollout.ts';

interface Field<T = unknown> {
  readonly valid: fc.Arbitrary<T>;
  readonly edge: fc.Arbitrary<T>;
}

const field = <V, E>(valid: fc.Arbitrary<V>, edge: fc.Arbitrary<E>): Field<V | E> => ({ valid, edge });
const enumField = (valid: readonly string[], nearMiss: readonly string[]): Field =>
  field(fc.constantFrom(...valid), fc.constantFrom(...nearMiss));

const anyText = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ maxLength }),
  );

const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const componentName = field(
  fc.oneof(fc.stringMatching(LABEL), fc.constantFrom('gpu-operator', 'constructor', 'a', '0')),
  fc.oneof(
    fc.constantFrom(
      '',
      '-a',
      'a-',
      'a_b',
      'a.b',
      'GPU-Operator',
      'gpu-öperator',
      'ｇｐｕ',
      '__proto__',
      'toString',
      'a\n',
    ),
    fc.integer({ min: 62, max: 65 }).map((n) => 'a'.repeat(n)),
    anyText(8),
  ),
);

/** A number of seconds spelled in one of the ways the format allows (or, past six digits, does not). */
function spell(seconds: number, style: number): string {
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  if (style === 0) return `${seconds}s`;
  if (style === 1) return `${Math.floor(seconds / 60)}m${seconds % 60}s`;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || (!h && !m) ? `${s}s` : ''}`;
}

const durationNearMiss = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '10',
    '1h1h',
    '30s1m',
    '1.5h',
    '90ms',
    '-1h',
    ' 1h',
    '1h ',
    '1H',
    '1d',
    '１０s',
    '1h\n',
    'PT1H',
    '9999999h',
    '0001000000s',
  ),
  anyText(24),
);

/** Durations at, just below and just above a field's bounds, in seconds. */
function durationField(minSeconds: number, maxSeconds: number): Field {
  const around = (b: number): number[] => [b - 1, b, b + 1];
  const boundary = fc
    .tuple(fc.constantFrom(0, ...around(minSeconds), ...around(maxSeconds)), fc.nat({ max: 2 }))
    .map(([s, style]) => spell(s, style));
  return field(
    fc.constantFrom('30s', '30m', '1h30m', '90m30s', '72h', '168h', '0167h59m60s'),
    fc.oneof({ arbitrary: boundary, weight: 3 }, { arbitrary: durationNearMiss, weight: 1 }),
  );
}

const uid = field(
  fc.oneof(fc.uuid(), fc.constant('00000000-0000-0000-0000-000000000000')),
  fc.oneof(
    fc.uuid().map((u) => u.toUpperCase()),
    fc.uuid().map((u) => u.replaceAll('-', '')),
    fc.uuid().map((u) => `{${u}}`),
    fc.uuid().map((u) => `${u}\n`),
    fc.uuid().map((u) => u.slice(1)),
    fc.constantFrom('yesterday', ''),
  ),
);

const planName = field(
  fc.integer({ min: 8, max: 64 }).map((n) => `aicr-plan-${'0a'.repeat(32).slice(0, n)}`),
  fc.oneof(
    fc
      .tuple(fc.constantFrom(7, 8, 64, 65), fc.constantFrom('0', 'A', '-', 'é'))
      .map(([n, c]) => `aicr-plan-${'a'.repeat(n - 1)}${c}`),
    fc.constantFrom('my-plan', 'aicr-plan-', 'AICR-PLAN-0123abcd'),
  ),
);

const record = (model: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(model, { requiredKeys: [], noNullPrototype: true });

const override = (pick: 'valid' | 'edge'): fc.Arbitrary<Record<string, unknown>> => {
  const version = field(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }),
    fc.oneof(
      fc.constantFrom('', null),
      fc.tuple(fc.integer({ min: 126, max: 130 }), fc.constantFrom('x', '\u{1F680}', 'é')).map(([n, c]) => c.repeat(n)),
    ),
  );
  const parts = {
    enabled: field(fc.boolean(), fc.constantFrom('yes', null)),
    version,
    values: field(fc.constantFrom({}, { image: { tag: 'v1' } }), fc.constantFrom([], null, { image: null })),
  };
  return record(
    Object.fromEntries(
      Object.entries(parts).map(([k, f]) => [k, pick === 'valid' ? f.valid : fc.oneof(f.valid, f.edge)]),
    ),
  );
};

const components = field(
  fc.dictionary(componentName.valid, override('valid'), { maxKeys: 3, noNullPrototype: true }),
  fc.oneof(
    fc.dictionary(fc.oneof(componentName.valid, componentName.edge), fc.oneof(override('edge'), fc.constant(null)), {
      minKeys: 1,
      maxKeys: 3,
      noNullPrototype: true,
    }),
    fc.dictionary(fc.stringMatching(LABEL), fc.constant({}), {
      minKeys: MAX_COMPONENTS - 1,
      maxKeys: MAX_COMPONENTS + 1,
      noNullPrototype: true,
    }),
  ),
);

const SCHEDULES = [
  '0 22 * * 1-5',
  '*/15 * * * *',
  '0 0 1 JAN *',
  '30 2 * * sun',
  '0 22-2 * * *',
  '5/10 0,12 1-7 */2 MON-FRI',
  '0 0 30 2 *',
];
const SCHEDULE_NEAR_MISSES = [
  '',
  '0 22 * *',
  '0 22 * * * *',
  '60 0 * * *',
  '0 24 * * *',
  '0 0 0 * *',
  '0 0 32 * *',
  '0 0 * 13 *',
  '0 0 * * 8',
  '0  0 * * *',
  ' 0 0 * * *',
  '0 0 * * */0',
  '0 0 * * Mon',
  '0 0 * * 1-',
  '@daily',
  '0 0 * * 1\n',
];
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'America/Argentina/Buenos_Aires'];
const ZONE_NEAR_MISSES = [
  '',
  'Local',
  'utc',
  'europe/berlin',
  'Mars/Olympus',
  'Europe/',
  '+01:00',
  'Europe/Berlin ',
  'A'.repeat(65),
];

const maintenanceWindow = (pick: 'valid' | 'edge'): fc.Arbitrary<Record<string, unknown>> => {
  const parts = {
    kind: field(fc.constantFrom('Allow', 'Deny'), fc.constantFrom('allow', 'Block')),
    schedule: field(fc.constantFrom(...SCHEDULES), fc.oneof(fc.constantFrom(...SCHEDULE_NEAR_MISSES), anyText(12))),
    duration: durationField(60, 168 * 3600),
    timeZone: field(fc.constantFrom(...ZONES), fc.constantFrom(...ZONE_NEAR_MISSES)),
  };
  const required =
    pick === 'valid'
      ? { schedule: parts.schedule.valid, duration: fc.constantFrom('1m', '2h', '8h30m', '168h') }
      : {
          schedule: fc.oneof(parts.schedule.valid, parts.schedule.edge),
          duration: fc.oneof(parts.duration.valid, parts.duration.edge),
        };
  const optional =
    pick === 'valid'
      ? { kind: parts.kind.valid, timeZone: parts.timeZone.valid }
      : {
          kind: fc.oneof(parts.kind.valid, parts.kind.edge),
          timeZone: fc.oneof(parts.timeZone.valid, parts.timeZone.edge),
        };
  return fc.tuple(fc.record(required, { noNullPrototype: true }), record(optional)).map(([r, o]) => ({ ...r, ...o }));
};

const maintenance = field(
  fc.oneof(
    fc.constant({}),
    fc.array(maintenanceWindow('valid'), { maxLength: 3 }).map((windows) => ({ windows })),
  ),
  fc.oneof(
    fc.array(maintenanceWindow('edge'), { minLength: 1, maxLength: 2 }).map((windows) => ({ windows })),
    fc
      .constantFrom(16, 17)
      .chain((n) => fc.array(maintenanceWindow('valid'), { minLength: n, maxLength: n }))
      .map((windows) => ({ windows })),
    fc.constantFrom({ windows: {} }, { windows: [null] }, { windows: [{}] }),
  ),
);

const SELECTORS = ['team=ml', 'aicr.run/protected', '!batch', 'team=ml,tier!=batch', 'app==train,example.com/gpu-job'];
const SELECTOR_NEAR_MISSES = [
  '',
  'team in (ml)',
  'team=ml,',
  '=ml',
  'team=',
  ' team=ml',
  'team=ml b=c',
  '-team=ml',
  `${'a'.repeat(1025)}`,
];

const workloads = field(
  fc.oneof(
    fc.constant({}),
    record({
      selector: fc.constantFrom(...SELECTORS),
      priorityClasses: fc.array(fc.constantFrom('training-critical', 'system-node-critical'), { maxLength: 2 }),
      disruptiveReleases: fc.array(componentName.valid, { maxLength: 2 }),
      maxWait: durationField(60, 720 * 3600).valid,
    }),
  ),
  fc.oneof(
    fc.constantFrom(...SELECTOR_NEAR_MISSES).map((selector) => ({ selector })),
    durationField(60, 720 * 3600).edge.map((maxWait) => ({ selector: 'team=ml', maxWait })),
    componentName.edge.map((name) => ({ disruptiveReleases: [name] })),
    fc.constantFrom(16, 17).map((n) => ({ priorityClasses: Array.from({ length: n }, (_, i) => `p${i}`) })),
  ),
);

const AICR_VERSION_EDGES = [
  '1.1.0',
  'v1.1',
  'V1.1.0',
  'v1.1.0-rc.1',
  'v1.1.0\n',
  'v١.1.0',
  '',
  `v1.1.${'0'.repeat(26)}`,
  `v1.1.${'0'.repeat(27)}`,
  `v1.1.${'0'.repeat(28)}`,
];

const RUNTIME_FIELDS: Record<string, Field> = {
  aicrVersion: enumField(['v1.1.0', 'v0.0.1', 'v10.20.30'], AICR_VERSION_EDGES),
  criteria: field(
    record({
      service: fc.constantFrom('eks', 'kind', 'k0s'),
      accelerator: fc.constantFrom('h100', 'rtx-pro-6000'),
      intent: fc.constantFrom('training', 'inference'),
    }),
    record({
      service: fc.constantFrom('EKS', 'mainframe', ''),
      accelerator: fc.constantFrom('H100', 'tpu'),
      os: fc.constantFrom('ubuntu', 'windows'),
      platform: fc.constantFrom('slurm', 'Slurm'),
    }),
  ),
  components,
  selection: field(
    fc.oneof(
      fc.constant({}),
      fc.constant({ mode: 'Automatic' }),
      planName.valid.map((plan) => ({ mode: 'Pinned', plan })),
    ),
    record({
      mode: fc.constantFrom('Automatic', 'Pinned', 'Manual', 'pinned'),
      plan: fc.oneof(planName.valid, planName.edge),
    }),
  ),
  validation: field(
    record({ deployment: fc.constantFrom('Required', 'Disabled') }),
    fc.constant({ deployment: 'Sometimes' }),
  ),
  paused: field(fc.boolean(), fc.constantFrom('true', 0)),
  suspendEngine: field(fc.boolean(), fc.constantFrom('false', 1)),
  deletionPolicy: enumField(['Orphan', 'Delete'], ['Cascade', 'orphan']),
  adoption: field(
    uid.valid.map((runtimeUID) => ({ runtimeUID })),
    fc.oneof(
      uid.edge.map((runtimeUID) => ({ runtimeUID })),
      fc.constant({}),
    ),
  ),
  actionTimeout: durationField(10, 168 * 3600),
  approvalTimeout: durationField(30, 720 * 3600),
  maintenance,
  workloads,
};

const manySteps = (n: number): Record<string, string>[] =>
  Array.from({ length: n }, (_, i) => ({ release: `r${i}`, action: 'Install' }));
const ACTIONS = ['Install', 'Upgrade', 'Remove', 'Adopt'];

const ROLLOUT_FIELDS: Record<string, Field> = {
  runtimeUID: uid,
  type: enumField(['Upgrade', 'Adopt', 'Remove'], ['Rollback', 'upgrade']),
  fromPlan: planName,
  toPlan: planName,
  steps: field(
    fc.array(fc.record({ release: componentName.valid, action: fc.constantFrom(...ACTIONS) }), { maxLength: 3 }),
    fc.oneof(
      fc.constantFrom(MAX_ROLLOUT_STEPS - 1, MAX_ROLLOUT_STEPS, MAX_ROLLOUT_STEPS + 1).map(manySteps),
      fc.array(
        record({
          release: fc.oneof(componentName.valid, componentName.edge),
          action: fc.constantFrom(...ACTIONS, 'Rollback'),
        }),
        { minLength: 1, maxLength: 2 },
      ),
    ),
  ),
};

/** Every field valid (optional ones sometimes left out), then none, one or two set to an edge value. */
function specOf(fields: Record<string, Field>, required: string[]): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(fields);
  const base = fc.record(Object.fromEntries(names.map((n) => [n, fields[n]?.valid ?? fc.constant(undefined)])), {
    requiredKeys: required,
    noNullPrototype: true,
  });
  const odd = fc.oneof(
    { arbitrary: fc.constant<string[]>([]), weight: 2 },
    { arbitrary: fc.constantFrom(...names).map((n) => [n]), weight: 4 },
    { arbitrary: fc.uniqueArray(fc.constantFrom(...names), { minLength: 2, maxLength: 2 }), weight: 1 },
  );
  // null is an edge of every field: the API server drops a null field before it validates.
  const edgeOf = (n: string): fc.Arbitrary<unknown> =>
    fc.oneof(
      { arbitrary: fields[n]?.edge ?? fc.constant(undefined), weight: 6 },
      { arbitrary: fc.constant(null), weight: 1 },
    );
  const edges = odd.chain((picked) => fc.tuple(...picked.map((n) => edgeOf(n).map((v) => [n, v] as const))));
  return fc.tuple(base, edges).map(([b, e]) => ({ ...b, ...Object.fromEntries(e) }));
}

export const clusterRuntimeSpec = specOf(RUNTIME_FIELDS, ['aicrVersion']);
export const runtimeRolloutSpec = specOf(ROLLOUT_FIELDS, ['runtimeUID', 'type', 'toPlan']);
export const runtimeName = fc.oneof(
  { arbitrary: fc.constant('cluster'), weight: 24 },
  { arbitrary: fc.constantFrom('gpu', 'cluster-1'), weight: 1 },
);
