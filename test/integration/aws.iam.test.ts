// Each function's AWS calls, signed with a role made from the packaged template's own policy
// documents, on an emulator that enforces IAM: a right the template forgets fails here. The
// emulator checks every call's action, but the resource and condition only for SQS, IAM and STS;
// so the template is also read statement by statement here (exact ARNs, the conditions), and a
// right that no call of the function needs fails too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { sqsRoutes } from '../../shared/aws/routes.ts';
import { loadConfig } from '../../shared/aws/environment.ts';
import type { Json, ResolvedStack } from '../helpers/cfnTemplate.ts';
import { ACTIONS, refusedByIam, type CallResult } from '../helpers/iamCalls.ts';
import {
  createStackResources,
  functionsOf,
  grantedActions,
  list,
  makeRole,
  policiesOf,
  queueUrl,
  runCalls,
  stackOn,
  type StackFunction,
} from '../helpers/iamStack.ts';
import { startIamMoto, type IamMoto } from '../helpers/motoIam.ts';
import { slsPackage } from '../../harness/sls.ts';

const FLEET_CLUSTER = 'gpu-fleet-b';
/** The prefix the registryPrefix deploy parameter defaults to. */
const PREFIX = 'aicr';
/** A repository resolution creates (the chart's), beside one that exists (the manifests'). */
const PROBE = { repository: `${PREFIX}/gpu-operator` };

/**
 * Rights used through the registry protocol with the function's ECR token (the emulator serves
 * no registry, so only the template reads vouch for them): resolution pulls the bundle and
 * pushes charts, and the token written for Argo CD pulls them.
 */
const REGISTRY_PROTOCOL: Readonly<Record<string, readonly string[]>> = {
  resolve: [
    'ecr:BatchCheckLayerAvailability',
    'ecr:BatchGetImage',
    'ecr:CompleteLayerUpload',
    'ecr:GetDownloadUrlForLayer',
    'ecr:InitiateLayerUpload',
    'ecr:PutImage',
    'ecr:UploadLayerPart',
  ],
  'token-refresh': ['ecr:BatchCheckLayerAvailability', 'ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer'],
  rollout: ['ecr:BatchGetImage'],
};

let moto: IamMoto;
let packaged: string;
let stack: ResolvedStack;
let fns: StackFunction[];

function refusals(results: readonly CallResult[]): string[] {
  return results.filter((r) => !r.ok).map((r) => `${r.call} [${r.actions.join(', ')}]: ${r.error ?? ''}`);
}

function fn(name: string): StackFunction {
  const found = fns.find((f) => f.name === name);
  assert.ok(found, `no function ${name}`);
  return found;
}

before(async () => {
  packaged = mkdtempSync(join(tmpdir(), 'aicr-sls-iam-'));
  await slsPackage(packaged);
  moto = await startIamMoto();
  // A fleet, so the describe right a fleet brings is granted and used.
  stack = stackOn(moto, packaged, { FleetClusters: FLEET_CLUSTER });
  await createStackResources(moto, stack, {
    fleetCluster: FLEET_CLUSTER,
    existingRepository: `${PREFIX}/gpu-operator-manifests`,
  });
  fns = functionsOf(stack);
});

after(async () => {
  await moto?.stop();
});

/** Every function of the template, so a new one is not left out. */
const FUNCTIONS = [
  'forwarder',
  'resolve',
  'snapshot',
  'rollout',
  'token-refresh',
  'drift-check',
  'notify',
  'relay',
] as const;

test('the template has exactly the functions these tests run, each consuming the queue its mapping names', () => {
  assert.deepEqual(fns.map((f) => f.name).sort(), [...FUNCTIONS].sort());
  for (const f of fns) if (f.name !== 'forwarder') assert.ok(f.consumedQueue, `${f.name} has an event source`);
});

/** Runs the function's calls with its role: none may be refused, and the role may grant nothing they do not use. */
async function checkFunction(name: (typeof FUNCTIONS)[number]): Promise<void> {
  const { role } = fn(name);
  const results = await runCalls(moto, fn(name), await makeRole(moto, stack, role, `${role}-probe`), PROBE);
  assert.deepEqual(refusals(results), [], `${name}'s role lacks rights its calls need`);
  const used = [...new Set([...results.flatMap((r) => r.actions), ...(REGISTRY_PROTOCOL[name] ?? [])])].sort();
  assert.deepEqual(grantedActions(stack, role), used, `${role} grants exactly what ${name} uses`);
}

test("the forwarder's wake-ups, timer sweep and fleet lookups succeed with its role, which grants nothing more", () =>
  checkFunction('forwarder'));
test('REG-2 the resolve function creates a repository under the prefix, mints its token and arms its timers with its role, which grants nothing more', () =>
  checkFunction('resolve'));
test("the snapshot function's retries, timers and fleet lookups succeed with its role, which grants nothing more", () =>
  checkFunction('snapshot'));
test("SEC-5 the rollout function's retries, timers, fleet lookups and the ECR token it checks chart digests with succeed with its role, which grants nothing more", () =>
  checkFunction('rollout'));
test('REG-4 the token-refresh function mints the ECR token and arms its 6-hourly timer with its role, which grants nothing more than that and the pulls the token carries', () =>
  checkFunction('token-refresh'));
test("the drift-check function's retries, periodic looks and fleet lookups succeed with its role, which grants nothing more", () =>
  checkFunction('drift-check'));
test("NTF-1 the notify function puts its notifications on the deployment's bus with its role, which grants nothing more", () =>
  checkFunction('notify'));
test('the relay forwards due messages, re-delays early ones and arms and moves long timers for every queue with its role, which grants nothing more', () =>
  checkFunction('relay'));

test('REG-2 with createRepositories=false the resolve role cannot create a repository, and the refusal names both fixes', async () => {
  const without = stackOn(moto, packaged, { FleetClusters: FLEET_CLUSTER, CreateRepositories: 'false' });
  assert.ok(!grantedActions(without, 'ResolveRole').includes('ecr:CreateRepository'));
  const results = await runCalls(
    moto,
    fn('resolve'),
    await makeRole(moto, without, 'ResolveRole', 'ResolveRole-no-create'),
    PROBE,
  );
  const refused = results.filter((r) => !r.ok);
  assert.deepEqual(
    refused.map((r) => r.actions),
    [ACTIONS.createRepository],
    `only the creation is refused: ${refusals(results).join('; ')}`,
  );
  assert.match(
    refused[0]?.error ?? '',
    /RepositoryCreationRefused.*aicr\/gpu-operator.*createRepositories=true.*create it yourself/,
  );
});

test("a function's role cannot send to another function's queue: the emulator compares the template's queue ARNs", async () => {
  const [snapshot, rollout] = [fn('snapshot'), fn('rollout')];
  assert.ok(snapshot.consumedQueue && rollout.consumedQueue);
  const credentials = await makeRole(moto, stack, snapshot.role, 'SnapshotRole-cross');
  const sqs = new SQSClient({ endpoint: moto.endpoint, region: moto.region, credentials });
  const send = (url: string) =>
    sqs.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: '{}',
        MessageGroupId: 'g',
        MessageDeduplicationId: `cross-${url.length}-${Date.now()}`,
      }),
    );
  await send(snapshot.consumedQueue);
  await assert.rejects(send(rollout.consumedQueue), refusedByIam);
});

// The emulator compares no resource outside SQS, IAM and STS, and no condition on the calls made
// above: each statement is read here instead.

/** What a statement's resources may be, by service, in this stack. */
function allowedResources(f: StackFunction): Record<string, (arn: string, actions: string[]) => boolean> {
  const { account, region } = stack.stack;
  const group = stack.physicalName('TimerGroup');
  const queues = new Set(stack.ofType('AWS::SQS::Queue').map(([id]) => stack.arn(id)));
  return {
    logs: (arn) => arn === `arn:aws:logs:${region}:${account}:log-group:${f.logGroup}:*`,
    sqs: (arn) => queues.has(arn),
    scheduler: (arn, actions) =>
      arn === `arn:aws:scheduler:${region}:${account}:schedule/${group}/*` ||
      (arn === '*' && actions.join() === 'scheduler:ListSchedules'),
    iam: (arn) => arn === stack.arn('TimerTargetRole'),
    ecr: (arn, actions) =>
      arn === `arn:aws:ecr:${region}:${account}:repository/${PREFIX}/*` ||
      (arn === '*' && actions.join() === 'ecr:GetAuthorizationToken'),
    // The fleet's clusters by name; partition and account are wildcards (EKS describes only the caller's own), the region a condition (checked below).
    eks: (arn) => arn === `arn:*:eks:*:*:cluster/${FLEET_CLUSTER}`,
    // The one bus eventBusName names (default here).
    events: (arn, actions) =>
      arn === `arn:aws:events:${region}:${account}:event-bus/default` && actions.join() === 'events:PutEvents',
  };
}

test('every statement names exact resources of this stack: its own log group and queues, the timer group, the timer role, repositories under the prefix, the notification bus; "*" only for the two calls that take no resource', () => {
  for (const f of fns) {
    const allowed = allowedResources(f);
    const statements = policiesOf(stack, f.role).flatMap((p) =>
      p.document.Statement.map((st) => ({ policy: p.name, st })),
    );
    for (const { policy, st } of statements) {
      assert.equal(st.Effect, 'Allow');
      const actions = list(st.Action).sort();
      const service = actions[0]?.split(':')[0] ?? '';
      const check = allowed[service];
      assert.ok(check, `${f.role}: no ${service} right is expected`);
      for (const arn of list(st.Resource))
        assert.ok(check(arn, actions), `${f.role}/${policy}: ${actions.join(',')} on ${arn}`);
    }
  }
});

test("each function's queue rights are exactly the queues its settings route to (its own URLs, or every step queue's from the URL base): it consumes its own, and sends only where its settings point", () => {
  const urlToArn = (url: string): string => `arn:aws:sqs:${moto.region}:${moto.account}:${url.split('/').pop() ?? ''}`;
  for (const f of fns) {
    const statements = policiesOf(stack, f.role).flatMap((p) => p.document.Statement);
    const on = (action: string): string[] =>
      statements
        .filter((st) => list(st.Action).includes(action))
        .flatMap((st) => list(st.Resource))
        .sort();
    const routes = sqsRoutes(loadConfig(f.env));
    const named = [...Object.values(routes.fifoQueueUrl), ...(routes.delayQueueUrl ? [routes.delayQueueUrl] : [])]
      .map(urlToArn)
      .sort();
    assert.deepEqual(on('sqs:SendMessage'), named, `${f.name} sends to the queues its settings name`);
    assert.deepEqual(
      on('sqs:ReceiveMessage'),
      f.consumedQueue ? [urlToArn(f.consumedQueue)] : [],
      `${f.name} consumes only its own queue`,
    );
  }
});

test('the two conditioned rights: passing the timer role, to EventBridge Scheduler alone, and describing the fleet, in this region alone; no other statement has or needs a condition', () => {
  for (const st of fns.flatMap((f) => policiesOf(stack, f.role).flatMap((p) => p.document.Statement))) {
    if (list(st.Action).includes('iam:PassRole')) {
      assert.deepEqual(list(st.Action), ['iam:PassRole']);
      assert.deepEqual(st.Condition, { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
      assert.deepEqual(list(st.Resource), [stack.arn('TimerTargetRole')]);
    } else if (list(st.Action).includes('eks:DescribeCluster')) {
      assert.deepEqual(list(st.Action), ['eks:DescribeCluster']);
      assert.deepEqual(st.Condition, { StringEquals: { 'aws:RequestedRegion': moto.region } });
    } else assert.equal(st.Condition, undefined, `${JSON.stringify(st.Action)} carries no condition`);
  }
  for (const role of ['ForwarderScheduleRole', 'TimerTargetRole']) {
    const trust = stack.value(stack.template.Resources[role]?.Properties['AssumeRolePolicyDocument'] ?? null) as {
      Statement: { Condition?: Json }[];
    };
    assert.deepEqual(
      trust.Statement.map((st) => st.Condition),
      [{ StringEquals: { 'aws:SourceAccount': moto.account } }],
      `Scheduler assumes ${role} for this account's schedules only`,
    );
  }
});

test("a timer's delivery: the role Scheduler assumes sends to every queue a function arms timers for and to the dead-letter queue their timers name, and to nothing else", async () => {
  const armed = fns.flatMap((f) =>
    Object.entries(f.env)
      .filter(([k]) => /^AICR_.*_QUEUE_ARN$/.test(k) || k === 'AICR_TIMER_DLQ_ARN')
      .map(([, v]) => v),
  );
  assert.ok(armed.includes(stack.arn('DelayDlq')), 'timers dead-letter to the delayed-work dead-letter queue');
  const targets = [...new Set(armed)].sort();
  const granted = policiesOf(stack, 'TimerTargetRole').flatMap((p) => p.document.Statement);
  assert.deepEqual(
    granted.map((st) => list(st.Action)),
    [['sqs:SendMessage']],
  );
  assert.deepEqual(
    granted.flatMap((st) => list(st.Resource)).sort(),
    targets,
    'exactly the queues timers are armed for',
  );
  const sqs = new SQSClient({
    endpoint: moto.endpoint,
    region: moto.region,
    credentials: await makeRole(moto, stack, 'TimerTargetRole', 'TimerTargetRole-probe'),
  });
  for (const [id] of stack.ofType('AWS::SQS::Queue')) {
    const fifo = stack.physicalName(id).endsWith('.fifo')
      ? { MessageGroupId: 'timer', MessageDeduplicationId: `timer-${id}` }
      : {};
    const send = sqs.send(new SendMessageCommand({ QueueUrl: queueUrl(stack, id), MessageBody: '{}', ...fifo }));
    if (targets.includes(stack.arn(id))) await send;
    else await assert.rejects(send, refusedByIam, `${id} is no timer's target`);
  }
});

test('Scheduler may start the forwarder, and only the forwarder, and dead-letter a start it could not make', () => {
  const granted = policiesOf(stack, 'ForwarderScheduleRole').flatMap((p) => p.document.Statement);
  assert.deepEqual(
    granted.map((st) => [list(st.Action), list(st.Resource)]),
    [
      [['lambda:InvokeFunction'], [stack.arn('ForwarderLambdaFunction')]],
      [['sqs:SendMessage'], [stack.arn('DelayDlq')]],
    ],
  );
});
