// The generated CRDs describe every field, bound every string, map and list (so no spec can
// carry e.g. 10 KB keys, and CEL's cost budget holds), and never refuse a spec with a raw regex.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_CRDS } from '../../shared/api/crd.ts';
import { durationSeconds } from '../../shared/api/duration.ts';

interface Node {
  type?: string;
  description?: string;
  properties?: Record<string, Node>;
  additionalProperties?: Node;
  items?: Node;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  maxLength?: number;
  maxProperties?: number;
  maxItems?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/** Every field of a schema with its dotted path; map values and list items read as "[]". */
function fields(node: Node, path: string): [string, Node][] {
  const own = Object.entries(node.properties ?? {}).flatMap(([k, v]) => [
    [`${path}.${k}`, v] as [string, Node],
    ...fields(v, `${path}.${k}`),
  ]);
  const nested = node.additionalProperties ?? node.items;
  return nested ? [...own, ...fields(nested, `${path}[]`)] : own;
}

function rootSchema(plural: keyof typeof ALL_CRDS): Node {
  const crd = ALL_CRDS[plural]() as unknown as { spec: { versions: { schema: { openAPIV3Schema: Node } }[] } };
  const schema = crd.spec.versions[0]?.schema.openAPIV3Schema;
  assert.ok(schema);
  return schema;
}

function unbounded(node: Node): string | undefined {
  // A date-time is bounded by its format.
  const bounded = node.maxLength !== undefined || node.enum !== undefined || node.format === 'date-time';
  if (node.type === 'string' && !bounded) return 'a string without maxLength';
  if (node.type === 'array' && node.maxItems === undefined) return 'a list without maxItems';
  if (node.additionalProperties && node.maxProperties === undefined) return 'a map without maxProperties';
  return undefined;
}

for (const plural of Object.keys(ALL_CRDS) as (keyof typeof ALL_CRDS)[]) {
  test(`${plural}: every field has a description for kubectl explain`, () => {
    // metadata is the API server's own and may carry nothing but the name's type.
    const missing = fields(rootSchema(plural), plural).filter(
      ([p, n]) => !p.startsWith(`${plural}.metadata`) && !n.description?.trim(),
    );
    assert.deepEqual(
      missing.map(([p]) => p),
      [],
    );
  });

  test(`${plural}: every string, map and list in spec and status is bounded`, () => {
    const root = rootSchema(plural);
    const all = [
      ...fields(root.properties?.['spec'] ?? {}, 'spec'),
      ...fields(root.properties?.['status'] ?? {}, 'status'),
    ];
    const loose = all.flatMap(([p, n]) => (unbounded(n) ? [`${p}: ${unbounded(n)}`] : []));
    assert.deepEqual(loose, []);
  });

  test(`${plural}: spec fields are checked by CEL rules with messages, never by a raw pattern`, () => {
    const withPattern = fields(rootSchema(plural).properties?.['spec'] ?? {}, 'spec').filter(
      ([, n]) => n.pattern !== undefined,
    );
    assert.deepEqual(
      withPattern.map(([p]) => p),
      [],
    );
  });
}

test('durations read as hours, minutes and seconds, in that order', () => {
  const cases: [string, number | undefined][] = [
    ['10s', 10],
    ['30m', 1800],
    ['1h30m', 5400],
    ['167h59m60s', 604_800],
    ['000001h', 3600],
    ['0s', 0],
    ['', undefined],
    ['1h1h', undefined],
    ['30s1m', undefined],
    ['1.5h', undefined],
    ['1000000s', undefined],
    ['-1h', undefined],
    ['1d', undefined],
  ];
  for (const [text, seconds] of cases) assert.equal(durationSeconds(text), seconds, JSON.stringify(text));
});
