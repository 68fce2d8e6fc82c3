// serverless.yml's per-step parts are generated from the step table; the committed file is never
// stale, and a row is all a step needs to get its function, queue, role, access entry and alarms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { SERVERLESS_YML, renderServerless } from '../../infra/serverless/render.ts';
import { STEP_TABLE, type StepRow } from '../../shared/steps/table.ts';

test('serverless.yml is what its template and the step table render (run npm run gen:steps)', () => {
  assert.equal(readFileSync(SERVERLESS_YML, 'utf8'), renderServerless());
});

test('a row of its own gives a step its function, queue, role, access entry, errors alarm, dashboard lines and outputs', () => {
  const probe: StepRow = {
    ...(STEP_TABLE[0] as StepRow),
    name: 'probe-step',
    queue: 'probe-step',
    owns: [],
    timeoutSeconds: 45,
    aws: { description: 'Probe step - test only' },
  };
  const text = renderServerless([...STEP_TABLE, probe]);
  // CloudFormation's short forms read as unknown tags, silently: the test looks at names, not references.
  const sls = parse(text, { logLevel: 'silent' }) as {
    functions: Record<string, { timeout: number; description: string }>;
    resources: { Resources: Record<string, { Properties: Record<string, unknown> }> };
  };
  assert.equal(sls.functions['probe-step']?.timeout, 45);
  assert.equal(sls.functions['probe-step']?.description, 'Probe step - test only');
  const resources = sls.resources.Resources;
  for (const name of ['ProbeStepQueue', 'ProbeStepRole', 'ProbeStepAccessEntry', 'ProbeStepFunctionAlarm'])
    assert.ok(resources[name], name);
  assert.equal(resources['ProbeStepQueue']?.Properties['VisibilityTimeout'], 270, 'six times its timeout');
  assert.match(text, /KubernetesGroups: \['aicr:step:probe-step'\]/);
  assert.match(text, /"Step","probe-step"\]/);
  assert.match(text, /ProbeStepQueueUrl:\n {6}Value: !Ref ProbeStepQueue/);
  assert.match(text, /ProbeDashstepLambdaFunction:/);
});
