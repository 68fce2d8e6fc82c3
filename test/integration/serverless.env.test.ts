// Each function's environment holds only what it uses, and the forwarder's, the largest, stays
// under 3 KB of Lambda's 4 KB with a fleet of 50 clusters (no function above 3.5 KB). The
// forwarder and the relay send to every step queue, so they get one URL base for all of them
// (AICR_QUEUE_URL_BASE) and a new step queue adds nothing to their environment; a step function
// names its own queue. Sizes are counted as Lambda counts them (every key and value), with the
// template's references filled in as a real deployment's values would be: full queue URLs and
// ARNs, an EKS endpoint and a certificate authority of the usual size.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqsRoutes } from '../../shared/aws/routes.ts';
import { loadConfig } from '../../shared/aws/environment.ts';
import { STEP_TIMING_METRICS_SETTING } from '../../shared/observability/metrics.ts';
import { queueViews } from '../../infra/serverless/queues.ts';
import { QUEUE_NAMES, QUEUE_URL_BASE_SETTING, queueSettings } from '../../shared/steps/table.ts';
import { slsPackage } from '../../harness/sls.ts';

type Fn = { Properties: { FunctionName: string; Environment: { Variables: Record<string, unknown> } } };
let fns: Record<string, Record<string, unknown>>;

const ACCOUNT = '123456789012';
const STACK = 'aicr-control-plane-prod';
const SQS_ORIGIN = `https://sqs.us-east-1.amazonaws.com/${ACCOUNT}`;
/** Fifty cluster names as long as the usual `<team>-<purpose>-<n>`. */
const FLEET = Array.from({ length: 50 }, (_, i) => `gpu-train-${String(i).padStart(3, '0')}`);
/** An EKS cluster's certificate authority is about 1.1 KB of PEM, 1.5 KB in base64. */
const CA_DATA = 'A'.repeat(1500);

function queueName(logical: string): string {
  const base = logical
    .replace(/Queue$|Dlq$/, '')
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .toLowerCase();
  return `${STACK}-${base}${logical === 'DelayQueue' ? '' : '.fifo'}`;
}

/** A part of a split value: how the template cuts the queues' URL base from a queue's URL. */
type SelectSplit = [number, { 'Fn::Split': [string, unknown] }];

function selectedPart(
  key: string,
  [
    index,
    {
      'Fn::Split': [delimiter, source],
    },
  ]: SelectSplit,
): string {
  const part = realValue(key, source).split(delimiter)[index];
  if (part === undefined)
    throw new Error(`${key}: no part ${index} of ${JSON.stringify(source)} split at ${delimiter}`);
  return part;
}

/** A literal, or the real cluster's value in place of the packaging's example. */
function realString(key: string, v: string): string {
  if (key === 'AICR_EKS_CA_DATA') return CA_DATA;
  if (key === 'AICR_EKS_ENDPOINT') return 'https://0123456789ABCDEF0123456789ABCDEF.gr7.us-east-1.eks.amazonaws.com';
  return v;
}

/** The value a real deployment would give a template expression. */
function realValue(key: string, v: unknown): string {
  if (typeof v === 'string') return realString(key, v);
  const e = v as {
    Ref?: string;
    'Fn::GetAtt'?: [string, string];
    'Fn::Join'?: unknown;
    'Fn::Select'?: SelectSplit;
    'Fn::If'?: [string, unknown, unknown];
  };
  if (e['Fn::If']) return longerBranch(key, e['Fn::If']);
  if (e['Fn::Join']) return FLEET.join(',');
  if (e['Fn::Select']) return selectedPart(key, e['Fn::Select']);
  if (e.Ref === 'TimerGroup') return `${STACK}-timers`;
  if (e.Ref === 'CreateRepositories') return 'true';
  if (e.Ref) return `${SQS_ORIGIN}/${queueName(e.Ref)}`;
  const [res, attr] = e['Fn::GetAtt'] ?? ['', ''];
  if (res === 'TimerTargetRole') return `arn:aws:iam::${ACCOUNT}:role/${STACK}-TimerTargetRole-0123456789AB`;
  if (attr === 'Arn') return `arn:aws:sqs:us-east-1:${ACCOUNT}:${queueName(res)}`;
  throw new Error(`no real value for ${key}: ${JSON.stringify(v)}`);
}

/** The longer branch of a condition, so the bound holds whichever way the condition goes. */
function longerBranch(key: string, [, yes, no]: [string, unknown, unknown]): string {
  const [a, b] = [realValue(key, yes), realValue(key, no)];
  return a.length >= b.length ? a : b;
}

const bytes = (env: Record<string, unknown>): number =>
  Object.entries(env).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(realValue(k, v)), 0);

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aicr-sls-env-'));
  await slsPackage(dir);
  const t = JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8')) as {
    Resources: Record<string, { Type: string } & Fn>;
  };
  fns = Object.fromEntries(
    Object.values(t.Resources)
      .filter((r) => r.Type === 'AWS::Lambda::Function')
      .map((r) => [
        r.Properties.FunctionName.replace(/^aicr-control-plane-ci-/, ''),
        r.Properties.Environment.Variables,
      ]),
  );
});

const realEnv = (fn: string): Record<string, string> =>
  Object.fromEntries(Object.entries(fns[fn] ?? {}).map(([k, v]) => [k, realValue(k, v)]));

test("the forwarder's environment stays under 3 KB with 50 fleet clusters, and no function passes 3.5 KB of Lambda's 4 KB", () => {
  const sizes = Object.fromEntries(Object.entries(fns).map(([fn, env]) => [fn, bytes(env)]));
  console.log(`environment bytes with 50 fleet clusters: ${JSON.stringify(sizes)}`);
  assert.ok((sizes['forwarder'] ?? Infinity) < 3 * 1024, `forwarder: ${sizes['forwarder']} bytes`);
  for (const [fn, size] of Object.entries(sizes)) assert.ok(size < 3.5 * 1024, `${fn}: ${size} bytes`);
});

test('each function is given only the queues it sends to, and its configuration still loads', () => {
  const queueKeys = (fn: string) =>
    Object.keys(fns[fn] ?? {})
      .filter((k) => /_QUEUE_(URL|ARN)$/.test(k) && k !== 'AICR_DELAY_QUEUE_URL')
      .sort();
  for (const q of QUEUE_NAMES) {
    const { url, arn } = queueSettings(q);
    assert.deepEqual(queueKeys(q), [arn, url].sort(), `the ${q} function names its own queue alone`);
    assert.ok(!(QUEUE_URL_BASE_SETTING in (fns[q] ?? {})), `the ${q} function has no route to the other step queues`);
  }
  assert.deepEqual(
    queueKeys('forwarder'),
    [],
    'the forwarder sends immediately (no ARNs), to every step queue through the URL base',
  );
  assert.deepEqual(
    queueKeys('relay'),
    QUEUE_NAMES.map((q) => queueSettings(q).arn).sort(),
    'the relay arms timers for every step queue, and forwards to them through the URL base',
  );
  const everyQueue = Object.fromEntries(QUEUE_NAMES.map((q) => [q, `${SQS_ORIGIN}/${STACK}-${q}.fifo`]));
  for (const fn of ['forwarder', 'relay'])
    assert.deepEqual(
      sqsRoutes(loadConfig(realEnv(fn))).fifoQueueUrl,
      everyQueue,
      `${fn}: the URL base gives each step queue's real URL`,
    );
  for (const env of Object.values(fns))
    assert.ok(!Object.keys(env).some((k) => k.endsWith('_DLQ_URL')), 'nothing sends to a dead-letter queue itself');
  for (const fn of Object.keys(fns))
    assert.doesNotThrow(() => loadConfig({ ...realEnv(fn), AICR_FLEET_CLUSTERS: '' }), `${fn}'s settings load`);
});

test("P6 a step run's timings are metric series only with the dashboard, which alone plots them; the forwarder and the relay run no step", () => {
  for (const v of queueViews())
    assert.deepEqual(
      fns[v.queue]?.[STEP_TIMING_METRICS_SETTING],
      { 'Fn::If': ['WithDashboard', 'true', 'false'] },
      `${v.queue}: timing metrics follow the dashboard`,
    );
  for (const fn of ['forwarder', 'relay'])
    assert.equal(fns[fn]?.[STEP_TIMING_METRICS_SETTING], undefined, `${fn} runs no step`);
});
