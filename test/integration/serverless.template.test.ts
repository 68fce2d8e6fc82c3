// `serverless package` runs offline with no AWS credentials, cfn-lint accepts the template,
// and the template has the properties the design depends on.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testEnv } from '../helpers/env.ts';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
type Resource = { Type: string; Properties: Record<string, unknown> };
let dir: string;
let resources: Record<string, Resource>;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aicr-sls-'));
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' };
  await run(join(ROOT, 'node_modules/.bin/sls'), ['package', '--stage', 'ci', '--package', dir], { cwd: ROOT, env });
  resources = (JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8')) as { Resources: Record<string, Resource> }).Resources;
});

function byType(type: string): [string, Resource][] {
  return Object.entries(resources).filter(([, r]) => r.Type === type);
}

function zipEntry(zip: string, entry: string): Promise<string> {
  const py = 'import sys,zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())';
  return run('python3', ['-c', py, zip, entry], { maxBuffer: 64 * 1024 * 1024 }).then((r) => r.stdout);
}

test('cfn-lint accepts the packaged template', async () => {
  // W3005: the framework adds a DependsOn on each function's role beside the GetAtt; harmless.
  const { stdout } = await run(join(testEnv().TESTENV_VENV, 'bin/cfn-lint'), ['--ignore-checks', 'W3005', '--', join(dir, 'cloudformation-template-update-stack.json')]);
  assert.equal(stdout.trim(), '');
});

test('step queues are FIFO with a FIFO DLQ, and visibility is six times the function timeout', () => {
  const fns = Object.fromEntries(byType('AWS::Lambda::Function').map(([, r]) => [r.Properties['FunctionName'], r.Properties]));
  const resolveTimeout = Number(fns['aicr-control-plane-ci-resolve']?.['Timeout']);
  const q = resources['ResolveQueue']?.Properties ?? {};
  assert.equal(q['FifoQueue'], true);
  assert.ok(Number(q['VisibilityTimeout']) >= 6 * resolveTimeout, 'visibility >= 6 x timeout');
  const redrive = q['RedrivePolicy'] as { maxReceiveCount: number; deadLetterTargetArn: unknown };
  assert.equal(redrive.maxReceiveCount, 5);
  assert.deepEqual(redrive.deadLetterTargetArn, { 'Fn::GetAtt': ['ResolveDlq', 'Arn'] });
  assert.equal(resources['ResolveDlq']?.Properties['FifoQueue'], true);
  const relayTimeout = Number(fns['aicr-control-plane-ci-relay']?.['Timeout']);
  assert.ok(Number(resources['DelayQueue']?.Properties['VisibilityTimeout']) >= 6 * relayTimeout);
});

test('event source mappings report batch item failures and use no batching window', () => {
  const mappings = byType('AWS::Lambda::EventSourceMapping');
  assert.equal(mappings.length, 2);
  for (const [, m] of mappings) {
    assert.deepEqual(m.Properties['FunctionResponseTypes'], ['ReportBatchItemFailures']);
    assert.equal(m.Properties['BatchSize'], 10);
    assert.equal(m.Properties['MaximumBatchingWindowInSeconds'], undefined);
  }
});

test('functions run on the Node major the tests run on', () => {
  const major = process.versions.node.split('.')[0];
  for (const [, f] of byType('AWS::Lambda::Function')) assert.equal(f.Properties['Runtime'], `nodejs${major}.x`);
});

test('each function has its own role allowing only what it uses', () => {
  const actions = (role: string): string[] => {
    const policies = resources[role]?.Properties['Policies'] as { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } }[];
    return policies.flatMap((p) => p.PolicyDocument.Statement.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]))).sort();
  };
  const consume = ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'];
  const expected = ['logs:CreateLogStream', 'logs:PutLogEvents', ...consume, 'sqs:SendMessage'].sort();
  assert.deepEqual(actions('ResolveRole'), expected);
  assert.deepEqual(actions('RelayRole'), expected);
  const text = JSON.stringify([resources['ResolveRole'], resources['RelayRole']]);
  assert.equal(text.includes('"Resource":"*"'), false, 'no wildcard resources');
  const roleOf = (name: string) => byType('AWS::Lambda::Function').find(([, r]) => r.Properties['FunctionName'] === name)?.[1].Properties['Role'];
  assert.deepEqual(roleOf('aicr-control-plane-ci-resolve'), { 'Fn::GetAtt': ['ResolveRole', 'Arn'] });
  assert.deepEqual(roleOf('aicr-control-plane-ci-relay'), { 'Fn::GetAtt': ['RelayRole', 'Arn'] });
});

test('one ESM bundle per function; only the Kubernetes-facing one carries the Kubernetes client', async () => {
  const resolve = await zipEntry(join(dir, 'resolve.zip'), 'functions/resolve.mjs');
  const relay = await zipEntry(join(dir, 'relay.zip'), 'functions/relay.mjs');
  assert.match(resolve, /loadFromFile/);
  assert.doesNotMatch(relay, /loadFromFile|openid-client/);
  assert.match(relay, /^import/m);
});
