// `kubectl explain` (the real kubectl, reading the API server's published schema) describes
// every field of both kinds, at every depth: no field says "<no description>".
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_CRDS } from '../../shared/api/crd.ts';
import { KINDS } from '../../shared/api/constants.ts';
import { ensureCrds, kubectl } from '../../harness/runtime.ts';

interface Node {
  properties?: Record<string, Node>;
  additionalProperties?: Node;
  items?: Node;
}

/** An object field, by its explain path, with the names of the fields it holds. */
interface ObjectField {
  readonly path: string;
  readonly children: string[];
}

/** Every object under `node`, looking through maps and lists as kubectl explain does. */
function objectFields(node: Node, path: string): ObjectField[] {
  const inner = node.additionalProperties ?? node.items ?? node;
  const props = inner.properties ?? {};
  const here = Object.keys(props).length > 0 ? [{ path, children: Object.keys(props) }] : [];
  return [...here, ...Object.entries(props).flatMap(([k, v]) => objectFields(v, `${path}.${k}`))];
}

function schemaOf(plural: keyof typeof ALL_CRDS, part: 'spec' | 'status'): Node {
  const crd = ALL_CRDS[plural]() as unknown as { spec: { versions: { schema: { openAPIV3Schema: Node } }[] } };
  const node = crd.spec.versions[0]?.schema.openAPIV3Schema.properties?.[part];
  assert.ok(node, `${plural} has ${part}`);
  return node;
}

before(async () => {
  await ensureCrds();
});

const KINDS_BY_PLURAL = { clusterruntimes: KINDS.clusterRuntime, runtimerollouts: KINDS.runtimeRollout } as const;

for (const plural of Object.keys(ALL_CRDS) as (keyof typeof ALL_CRDS)[]) {
  const singular = KINDS_BY_PLURAL[plural].singular;
  test(`kubectl explain ${singular}.spec and .status show a description for every field`, async () => {
    const objects = [
      ...objectFields(schemaOf(plural, 'spec'), `${singular}.spec`),
      ...objectFields(schemaOf(plural, 'status'), `${singular}.status`),
    ];
    assert.ok(objects.length >= 3, 'found the object fields to explain');
    for (const { path, children } of objects) {
      const out = await kubectl('explain', path);
      assert.doesNotMatch(out, /<no description>/, `${path}:\n${out}`);
      assert.match(out, /DESCRIPTION:\n\s+\S/, `${path} has its own description`);
      // A field line, its enum values if any, then its description, indented by four.
      for (const child of children)
        assert.match(
          out,
          new RegExp(`^  ${child}\\t<.*\\n(  enum: .*\\n)? {4}\\S`, 'm'),
          `${path}.${child} is described:\n${out}`,
        );
    }
  });
}
