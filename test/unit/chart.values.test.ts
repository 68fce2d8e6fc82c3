// The chart's values: helm lint passes, values.schema.json is the configuration's own schema (so
// Helm refuses a misspelt key or a wrong type by name, before anything is installed), every key
// in values.yaml is documented there, and its defaults are the control plane's defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CHART_DIR, VALUES_SCHEMA } from '../../infra/chartPaths.ts';
import { ConfigurationSchema } from '../../shared/configuration/schema.ts';
import { renderValuesSchema } from '../../shared/configuration/valuesSchema.ts';
import { CHART_VALUES, helm, renderChart } from '../../harness/chart.ts';

const VALUES_TEXT = readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8');

async function refusal(valueArgs: string[]): Promise<string> {
  return renderChart(valueArgs).then(
    () => '',
    (err: unknown) => String(err),
  );
}

test('helm lint passes on the chart with its defaults and with the test values', async () => {
  assert.match(await helm('lint', CHART_DIR), /1 chart\(s\) linted, 0 chart\(s\) failed/);
  assert.match(
    await helm('lint', CHART_DIR, '-f', CHART_VALUES, '--set', 'registry.repository=registry.example:5000/aicr'),
    /0 chart\(s\) failed/,
  );
});

test('values.schema.json is what npm run gen:crds writes from the configuration schema', () => {
  assert.equal(readFileSync(VALUES_SCHEMA, 'utf8'), renderValuesSchema(), 'run npm run gen:crds');
});

test('helm refuses a misspelt values key and a value of the wrong kind, naming the field', async () => {
  assert.match(await refusal(['--set', 'aicr.jobs.nodeSelectr.a=b']), /\/aicr\/jobs[\s\S]*nodeSelectr/);
  assert.match(await refusal(['--set', 'registry.auth.mode=gcp']), /\/registry\/auth\/mode[\s\S]*(static|aws)/);
  assert.match(await refusal(['--set', 'plans.keep=0']), /\/plans\/keep/);
  assert.match(await refusal(['--set', 'registry.repository=https://registry.example/aicr']), /\/registry\/repository/);
  assert.equal(await refusal(['--set', 'plans.keep=7', '--set', 'argocd.mode=managed']), '', 'valid values render');
});

test("values.yaml's defaults are the defaults the control plane fills in for an empty configuration", () => {
  assert.deepEqual(ConfigurationSchema.parse(parse(VALUES_TEXT)), ConfigurationSchema.parse({}));
});

interface KeyLine {
  readonly indent: number;
  readonly key: string;
  readonly leaf: boolean;
  readonly commented: boolean;
}

function keyLines(text: string): KeyLine[] {
  const lines = text.split('\n');
  return lines.flatMap((line, i) => {
    const m = /^( *)([A-Za-z][A-Za-z0-9]*):(.*)$/.exec(line);
    if (!m) return [];
    const [, spaces = '', key = '', rest = ''] = m;
    const above =
      lines
        .slice(0, i)
        .reverse()
        .find((l) => l.trim() !== '') ?? '';
    return [
      {
        indent: spaces.length,
        key,
        leaf: rest.trim() !== '',
        commented: above.indexOf('#') === spaces.length && above.trim().startsWith('#'),
      },
    ];
  });
}

/** Leaf keys of values.yaml with no comment directly above them or above a key that holds them. */
function undocumentedLeaves(text: string): string[] {
  const stack: { indent: number; key: string; documented: boolean }[] = [];
  const missing: string[] = [];
  for (const k of keyLines(text)) {
    while (stack.length > 0 && (stack.at(-1)?.indent ?? 0) >= k.indent) stack.pop();
    const documented = k.commented || stack.some((s) => s.documented);
    if (k.leaf && !documented) missing.push([...stack.map((s) => s.key), k.key].join('.'));
    stack.push({ indent: k.indent, key: k.key, documented });
  }
  return missing;
}

test('every key in values.yaml is documented by a comment above it or above the block that holds it', () => {
  assert.deepEqual(undocumentedLeaves(VALUES_TEXT), []);
  assert.deepEqual(undocumentedLeaves('a:\n  b: 1\n'), ['a.b'], 'the check finds an undocumented key');
});
