// The packaged stack made real enough on the IAM-enforcing emulator for each function's calls: the
// queues, timer group, log groups and fleet cluster it names, and each role built from the
// template's own policy documents, with the credentials a function of that role would have.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CreateRepositoryCommand, ECRClient } from '@aws-sdk/client-ecr';
import { CreateScheduleCommand, CreateScheduleGroupCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { CreateQueueCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { timerName } from '../../shared/aws/schedulerTimers.ts';
import { ResolvedStack, readPackagedTemplate, type Json } from './cfnTemplate.ts';
import type { CallResult } from './iamCalls.ts';
import { assumeRole, queryAction, signedRequest, type Credentials, type IamMoto } from './motoIam.ts';
import { ROOT } from '../../harness/sls.ts';

const run = promisify(execFile);
/** Services whose calls the emulator authorizes by resource as well as action. */
const RESOURCE_CHECKED = new Set(['sqs', 'iam', 'sts']);

export type Statement = { Effect: string; Action: string | string[]; Resource: string | string[]; Condition?: Json };
export type PolicyDocument = { Version: string; Statement: Statement[] };

export interface StackFunction {
  /** The function's name in the step table and under functions/. */
  readonly name: string;
  readonly logical: string;
  readonly role: string;
  /** Its environment, as the template sets it. */
  readonly env: Record<string, string>;
  /** The queue its event source mapping consumes. */
  readonly consumedQueue?: string;
  readonly logGroup: string;
}

export const list = (v: string | string[]): string[] => (Array.isArray(v) ? v : [v]);

export function stackOn(moto: IamMoto, packaged: string, parameters: Record<string, string>): ResolvedStack {
  return new ResolvedStack(readPackagedTemplate(packaged), {
    account: moto.account,
    region: moto.region,
    queueOrigin: moto.endpoint,
    parameters,
  });
}

export function queueUrl(stack: ResolvedStack, logical: string): string {
  return `${stack.stack.queueOrigin}/${stack.stack.account}/${stack.physicalName(logical)}`;
}

/** The policy documents a role holds in the stack: its own, and the managed ones attached to it. */
export function policiesOf(s: ResolvedStack, role: string): { name: string; document: PolicyDocument }[] {
  const resource = s.template.Resources[role];
  assert.ok(resource, `no role ${role}`);
  const own = (
    s.value(resource.Properties['Policies'] ?? []) as { PolicyName: string; PolicyDocument: PolicyDocument }[]
  ).map((p) => ({ name: p.PolicyName, document: p.PolicyDocument }));
  const managed = s
    .ofType('AWS::IAM::ManagedPolicy')
    .filter(([, p]) => JSON.stringify(p.Properties['Roles']).includes(`"${role}"`))
    .map(([id, p]) => ({
      name: id,
      document: s.value(p.Properties['PolicyDocument'] ?? null) as unknown as PolicyDocument,
    }));
  assert.deepEqual(
    s.value(resource.Properties['ManagedPolicyArns'] ?? [], []),
    [],
    `${role}: no AWS managed policy, whose rights no test here sees`,
  );
  return [...own, ...managed];
}

export function grantedActions(s: ResolvedStack, role: string): string[] {
  return [...new Set(policiesOf(s, role).flatMap((p) => p.document.Statement.flatMap((st) => list(st.Action))))].sort();
}

/**
 * The statement as the emulator can check it: resources kept where it compares them, "*" where it
 * compares none (it would otherwise refuse every call there; the template reads check those).
 */
function forEmulator(st: Statement): Statement {
  const services = new Set(list(st.Action).map((a) => a.split(':')[0] ?? ''));
  assert.equal(services.size, 1, `one service per statement: ${JSON.stringify(st.Action)}`);
  return RESOURCE_CHECKED.has([...services][0] ?? '') ? st : { ...st, Resource: '*' };
}

/** The role in the emulator: the template's policies, trusted by the test's administrator in Lambda's stead. */
export async function makeRole(moto: IamMoto, s: ResolvedStack, role: string, name: string): Promise<Credentials> {
  const trust = {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Principal: { AWS: moto.adminArn }, Action: 'sts:AssumeRole' }],
  };
  await queryAction(moto, moto.admin, 'iam', {
    Action: 'CreateRole',
    RoleName: name,
    AssumeRolePolicyDocument: JSON.stringify(trust),
  });
  for (const p of policiesOf(s, role)) {
    const document = { ...p.document, Statement: p.document.Statement.map(forEmulator) };
    await queryAction(moto, moto.admin, 'iam', {
      Action: 'PutRolePolicy',
      RoleName: name,
      PolicyName: p.name,
      PolicyDocument: JSON.stringify(document),
    });
  }
  return assumeRole(moto, `arn:aws:iam::${moto.account}:role/${name}`);
}

/** Runs the function's calls (functionAwsCalls.ts) in a process of its own, with its environment and its role's credentials. */
export async function runCalls(
  moto: IamMoto,
  fn: StackFunction,
  credentials: Credentials,
  probe: { repository: string },
): Promise<CallResult[]> {
  const out = join(mkdtempSync(join(tmpdir(), 'aicr-iam-')), `${fn.name}.json`);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    ...fn.env,
    LOG_LEVEL: 'error',
    AWS_ENDPOINT_URL: moto.endpoint,
    AWS_REGION: moto.region,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_SESSION_TOKEN: credentials.sessionToken,
    IAM_PROBE_REPOSITORY: probe.repository,
    IAM_PROBE_LOG_GROUP: fn.logGroup,
    ...(fn.consumedQueue ? { IAM_PROBE_CONSUMED_QUEUE_URL: fn.consumedQueue } : {}),
  };
  const node = join(ROOT, 'node_modules/.bin/node');
  const script = join(ROOT, 'test/helpers/functionAwsCalls.ts');
  const child = await run(node, ['--import', 'tsx', script, fn.name, out], { cwd: ROOT, env, timeout: 120_000 }).catch(
    (err: unknown) => {
      throw new Error(`${fn.name}'s calls did not run: ${String(err)}`);
    },
  );
  const results = JSON.parse(readFileSync(out, 'utf8')) as CallResult[];
  assert.ok(results.length > 0, `${fn.name} made no call (output: ${child.stdout}${child.stderr})`);
  return results;
}

async function logs(moto: IamMoto, target: string, body: object): Promise<void> {
  const answer = await signedRequest(moto.endpoint, moto.admin, {
    service: 'logs',
    region: moto.region,
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `Logs_20140328.${target}` },
    body: JSON.stringify(body),
  });
  assert.equal(answer.status, 200, answer.text);
}

/** The template's functions, each with what its role, environment and event source name. */
export function functionsOf(stack: ResolvedStack): StackFunction[] {
  const mappings = stack
    .ofType('AWS::Lambda::EventSourceMapping')
    .map(([, m]) => stack.value(m.Properties as Json) as { FunctionName: string; EventSourceArn: string });
  return stack.ofType('AWS::Lambda::Function').map(([logical, f]) => {
    const props = stack.value(f.Properties as Json) as {
      FunctionName: string;
      Environment: { Variables: Record<string, string> };
    };
    const mapping = mappings.find((m) => m.FunctionName === stack.arn(logical));
    const consumed = mapping
      ? stack.ofType('AWS::SQS::Queue').find(([id]) => stack.arn(id) === mapping.EventSourceArn)?.[0]
      : undefined;
    return {
      name: props.FunctionName.replace(/^aicr-control-plane-ci-/, ''),
      logical,
      role: (f.Properties['Role'] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0],
      env: props.Environment.Variables,
      ...(consumed ? { consumedQueue: queueUrl(stack, consumed) } : {}),
      logGroup: `/aws/lambda/${props.FunctionName}`,
    };
  });
}

/**
 * What the stack holds before any function runs, made by the administrator: its queues (a message
 * waiting on each one a function consumes), its timer group with a gone runtime's timer, its log
 * groups, a further cluster of the fleet and one repository under the prefix.
 */
export async function createStackResources(
  moto: IamMoto,
  stack: ResolvedStack,
  opts: { fleetCluster: string; existingRepository: string },
): Promise<void> {
  const aws = { endpoint: moto.endpoint, region: moto.region, credentials: moto.admin };
  const sqs = new SQSClient(aws);
  for (const [id] of stack.ofType('AWS::SQS::Queue')) {
    const name = stack.physicalName(id);
    await sqs.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: name.endsWith('.fifo') ? { FifoQueue: 'true', ContentBasedDeduplication: 'true' } : {},
      }),
    );
  }
  const scheduler = new SchedulerClient(aws);
  const [[groupId] = []] = stack.ofType('AWS::Scheduler::ScheduleGroup');
  assert.ok(groupId, 'the template has a timer group');
  const group = stack.physicalName(groupId);
  await scheduler.send(new CreateScheduleGroupCommand({ Name: group }));
  await scheduler.send(
    new CreateScheduleCommand({
      Name: timerName('runtime-00000000-0000-4000-8000-000000000000', 'gone'),
      GroupName: group,
      ScheduleExpression: 'at(2099-01-01T00:00:00)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: stack.arn('ResolveQueue'), RoleArn: stack.arn('TimerTargetRole'), Input: '{}' },
    }),
  );
  const eks = await signedRequest(moto.endpoint, moto.admin, {
    service: 'eks',
    region: moto.region,
    method: 'POST',
    path: '/clusters',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: opts.fleetCluster,
      roleArn: `arn:aws:iam::${moto.account}:role/eks`,
      resourcesVpcConfig: { subnetIds: [] },
    }),
  });
  assert.equal(eks.status, 200, eks.text);
  await new ECRClient(aws).send(new CreateRepositoryCommand({ repositoryName: opts.existingRepository }));
  for (const fn of functionsOf(stack)) {
    await logs(moto, 'CreateLogGroup', { logGroupName: fn.logGroup });
    if (fn.consumedQueue) {
      const fifo = fn.consumedQueue.endsWith('.fifo')
        ? { MessageGroupId: 'seed', MessageDeduplicationId: `seed-${fn.name}` }
        : {};
      await sqs.send(new SendMessageCommand({ QueueUrl: fn.consumedQueue, MessageBody: '{}', ...fifo }));
    }
  }
}
