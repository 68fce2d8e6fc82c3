// `serverless package` runs offline with no AWS credentials, cfn-lint accepts the template,
// and the template has the properties the design depends on.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { IDENTITY_GROUP } from '../../shared/api/constants.ts';
import { ConfigSchema } from '../../shared/aws/environment.ts';
import { testEnv } from '../../harness/env.ts';
import { withList } from '../helpers/cfnTemplate.ts';
import { EXAMPLE_PARAMS, ROOT, slsPackage } from '../../harness/sls.ts';
import { MAX_RECEIVES } from '../../shared/queue/deliveryPolicy.ts';
import { QUEUE_NAMES } from '../../shared/steps/table.ts';
import { queueViews } from '../../infra/serverless/queues.ts';
import { METRIC, METRIC_NAMES, METRICS_NAMESPACE } from '../../shared/observability/metrics.ts';
import { assertClean, checkov } from '../helpers/checkov.ts';

const run = promisify(execFile);
type Resource = { Type: string; Properties: Record<string, unknown> };
let dir: string;
let resources: Record<string, Resource>;
let template: {
  Resources: Record<string, Resource>;
  Parameters: Record<string, unknown>;
  Conditions: Record<string, unknown>;
};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aicr-sls-'));
  await slsPackage(dir);
  template = JSON.parse(
    readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8'),
  ) as typeof template;
  resources = template.Resources;
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
  const { stdout } = await run(join(testEnv().TESTENV_VENV, 'bin/cfn-lint'), [
    '--ignore-checks',
    'W3005',
    '--',
    join(dir, 'cloudformation-template-update-stack.json'),
  ]);
  assert.equal(stdout.trim(), '');
});

test('SEC-10 Checkov finds nothing on the packaged template: each finding is fixed or skipped in place with its reason', async () => {
  // The skips are the resources' Metadata, from infra/serverless/scannerSkips.ts; docs/security.md lists them.
  const report = await checkov('cloudformation', ['-f', join(dir, 'cloudformation-template-update-stack.json')]);
  assertClean(report, 'the packaged template', Object.keys(resources).length);
  const bucket = resources['ServerlessDeploymentBucket']?.Properties ?? {};
  assert.deepEqual(bucket['PublicAccessBlockConfiguration'], {
    BlockPublicAcls: true,
    BlockPublicPolicy: true,
    IgnorePublicAcls: true,
    RestrictPublicBuckets: true,
  });
  assert.deepEqual(bucket['VersioningConfiguration'], { Status: 'Enabled' });
  assert.match(JSON.stringify(bucket['LifecycleConfiguration']), /"NoncurrentDays":30/, 'old versions do not pile up');
});

test('FLT-2 step queues are FIFO with a FIFO DLQ, and visibility is six times the function timeout', () => {
  const fns = Object.fromEntries(
    byType('AWS::Lambda::Function').map(([, r]) => [r.Properties['FunctionName'], r.Properties]),
  );
  const resolveTimeout = Number(fns['aicr-control-plane-ci-resolve']?.['Timeout']);
  const q = resources['ResolveQueue']?.Properties ?? {};
  assert.equal(q['FifoQueue'], true);
  assert.equal(q['ContentBasedDeduplication'], true, 'Scheduler timers can target it');
  assert.ok(Number(q['VisibilityTimeout']) >= 6 * resolveTimeout, 'visibility >= 6 x timeout');
  const redrive = q['RedrivePolicy'] as { maxReceiveCount: number; deadLetterTargetArn: unknown };
  assert.equal(
    redrive.maxReceiveCount,
    MAX_RECEIVES,
    'the redrive agrees with the dispatcher: only undeliverable messages count',
  );
  for (const [name, r] of byType('AWS::SQS::Queue')) {
    const policy = r.Properties['RedrivePolicy'] as { maxReceiveCount: number } | undefined;
    if (policy) assert.equal(policy.maxReceiveCount, MAX_RECEIVES, `${name}: maxReceiveCount is MAX_RECEIVES`);
  }
  assert.deepEqual(redrive.deadLetterTargetArn, { 'Fn::GetAtt': ['StepDlq', 'Arn'] });
  assert.equal(resources['StepDlq']?.Properties['FifoQueue'], true);
  const relayTimeout = Number(fns['aicr-control-plane-ci-relay']?.['Timeout']);
  assert.ok(Number(resources['DelayQueue']?.Properties['VisibilityTimeout']) >= 6 * relayTimeout);
});

test('event source mappings report batch item failures and use no batching window', () => {
  const mappings = byType('AWS::Lambda::EventSourceMapping');
  // Every step queue's function and the relay are queue-fed; the forwarder runs on a schedule.
  assert.equal(mappings.length, QUEUE_NAMES.length + 1);
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

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
type Conditional = { 'Fn::If': [string, Statement, unknown] };

/** A role's statements; one under a template condition counts as granted (the default parameters). */
function statements(role: string): Statement[] {
  const policies = resources[role]?.Properties['Policies'] as {
    PolicyDocument: { Statement: (Statement | Conditional)[] };
  }[];
  return policies.flatMap((p) => p.PolicyDocument.Statement).map((st) => ('Fn::If' in st ? st['Fn::If'][1] : st));
}

function conditionalStatements(role: string): Conditional['Fn::If'][] {
  return (resources[role]?.Properties['Policies'] as { PolicyDocument: { Statement: (Statement | Conditional)[] } }[])
    .flatMap((p) => p.PolicyDocument.Statement)
    .flatMap((st) => ('Fn::If' in st ? [st['Fn::If']] : []));
}

function actions(role: string): string[] {
  return statements(role)
    .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]))
    .sort();
}

test('each function has its own role allowing only what it uses', () => {
  const logs = ['logs:CreateLogStream', 'logs:PutLogEvents'];
  const consume = ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'];
  const pass = ['iam:PassRole'];
  const ecrPushPull = [
    'ecr:BatchCheckLayerAvailability',
    'ecr:BatchGetImage',
    'ecr:CompleteLayerUpload',
    'ecr:GetDownloadUrlForLayer',
    'ecr:InitiateLayerUpload',
    'ecr:PutImage',
    'ecr:UploadLayerPart',
  ];
  const ecr = statements('ResolveRole').find((st) => Array.isArray(st.Action) && st.Action.includes('ecr:PutImage'));
  assert.match(
    JSON.stringify(ecr?.Resource),
    /:repository\/aicr\/\*"/,
    'ECR pushes and pulls only under the repository prefix (param registryPrefix)',
  );
  assert.deepEqual(
    actions('ResolveRole'),
    [
      ...pass,
      ...logs,
      'ecr:CreateRepository',
      'ecr:GetAuthorizationToken',
      ...ecrPushPull,
      'scheduler:CreateSchedule',
      'scheduler:UpdateSchedule',
      ...consume,
      'sqs:SendMessage',
    ].sort(),
  );
  assert.deepEqual(
    actions('RelayRole'),
    [...pass, ...logs, 'scheduler:CreateSchedule', 'scheduler:UpdateSchedule', ...consume, 'sqs:SendMessage'].sort(),
  );
  assert.deepEqual(
    actions('ForwarderRole'),
    [...logs, 'scheduler:DeleteSchedule', 'scheduler:ListSchedules', 'sqs:SendMessage'].sort(),
  );
  // The token-refresh role: the ECR token, which carries its rights, and pulls under the prefix (REG-4).
  const pull = ['ecr:BatchCheckLayerAvailability', 'ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer'];
  assert.deepEqual(
    actions('TokenRefreshRole'),
    [
      ...pass,
      ...logs,
      'ecr:GetAuthorizationToken',
      ...pull,
      'scheduler:CreateSchedule',
      'scheduler:UpdateSchedule',
      ...consume,
      'sqs:SendMessage',
    ].sort(),
  );
  // The drift-check role: its queue, its retries and timers, its logs; nothing in AWS beyond them.
  assert.deepEqual(
    actions('DriftCheckRole'),
    [...pass, ...logs, 'scheduler:CreateSchedule', 'scheduler:UpdateSchedule', ...consume, 'sqs:SendMessage'].sort(),
  );
  for (const role of ['ResolveRole', 'RelayRole', 'ForwarderRole', 'TokenRefreshRole', 'DriftCheckRole']) {
    for (const st of statements(role)) {
      if (st.Resource === '*')
        assert.ok(
          ['scheduler:ListSchedules', 'ecr:GetAuthorizationToken'].includes(String(st.Action)),
          `${role}: only ListSchedules and GetAuthorizationToken, which have no resource-level permissions, use "*"`,
        );
    }
  }
  const roleOf = (name: string) =>
    byType('AWS::Lambda::Function').find(([, r]) => r.Properties['FunctionName'] === name)?.[1].Properties['Role'];
  for (const fn of ['resolve', 'relay', 'forwarder']) {
    const role = `${fn[0]?.toUpperCase()}${fn.slice(1)}Role`;
    assert.deepEqual(roleOf(`aicr-control-plane-ci-${fn}`), { 'Fn::GetAtt': [role, 'Arn'] });
  }
});

/** The ARN a Fn::Sub string names, with the template's own pseudo parameters filled in as the test account would. */
function subArn(resource: unknown): string {
  const sub = (resource as { 'Fn::Sub'?: unknown })['Fn::Sub'];
  assert.equal(typeof sub, 'string', `a Fn::Sub ARN, got ${JSON.stringify(resource)}`);
  return String(sub)
    .replace('${AWS::Partition}', 'aws')
    .replace('${AWS::Region}', 'us-east-1')
    .replace('${AWS::AccountId}', '123456789012');
}

test('REG-4 the token Argo CD is given may pull every repository under the prefix and nothing else: no push, no other repository, no other service', () => {
  const ecr = statements('TokenRefreshRole').filter((st) => [st.Action].flat().some((a) => a.startsWith('ecr:')));
  assert.deepEqual(
    ecr.map((st) => [st.Action].flat().sort()),
    [
      ['ecr:GetAuthorizationToken'],
      ['ecr:BatchCheckLayerAvailability', 'ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer'],
    ],
  );
  assert.equal(ecr[0]?.Resource, '*', 'GetAuthorizationToken has no resource-level permissions');
  assert.equal(
    subArn(ecr[1]?.Resource),
    'arn:aws:ecr:us-east-1:123456789012:repository/aicr/*',
    'exactly the repositories under the prefix, ending at /*',
  );
  assert.ok(
    !actions('TokenRefreshRole').some((a) => a.startsWith('eks:')),
    'no EKS call: argocd.mode says whether Argo CD is the capability',
  );
});

test('REG-2 resolution may create repositories under the prefix, and only there, unless the deployment turns it off', () => {
  const conditional = conditionalStatements('ResolveRole');
  assert.equal(conditional.length, 1);
  const [condition, statement, otherwise] = conditional[0] ?? [];
  assert.deepEqual(
    [condition, otherwise],
    ['CreatesRepositories', { Ref: 'AWS::NoValue' }],
    'createRepositories=false drops the right',
  );
  assert.deepEqual(
    [statement?.Action, subArn(statement?.Resource)],
    ['ecr:CreateRepository', 'arn:aws:ecr:us-east-1:123456789012:repository/aicr/*'],
  );
  assert.deepEqual(template.Conditions['CreatesRepositories'], {
    'Fn::Equals': [{ Ref: 'CreateRepositories' }, 'true'],
  });
  assert.equal((template.Parameters['CreateRepositories'] as { Default: string }).Default, 'true', 'on by default');
  const fn = byType('AWS::Lambda::Function').find(
    ([, r]) => r.Properties['FunctionName'] === 'aicr-control-plane-ci-resolve',
  )?.[1].Properties;
  assert.deepEqual(
    (fn?.['Environment'] as { Variables: Record<string, unknown> }).Variables['AICR_ECR_CREATE_REPOSITORIES'],
    { Ref: 'CreateRepositories' },
  );
});

test('the forwarder starts every minute, leaves after a quiet pass, and while busy its window overlaps the next', () => {
  const [[, schedule]] = byType('AWS::Scheduler::Schedule') as [[string, Resource]];
  assert.equal(schedule.Properties['ScheduleExpression'], 'rate(1 minute)');
  const target = schedule.Properties['Target'] as {
    Arn: unknown;
    RoleArn: unknown;
    RetryPolicy?: { MaximumRetryAttempts: number; MaximumEventAgeInSeconds: number };
  };
  assert.deepEqual(target.RoleArn, { 'Fn::GetAtt': ['ForwarderScheduleRole', 'Arn'] });
  assert.deepEqual(target.Arn, { 'Fn::GetAtt': ['ForwarderLambdaFunction', 'Arn'] });
  // A failed start is retried only while it is still this minute's; the next minute's is due then.
  assert.ok((target.RetryPolicy?.MaximumRetryAttempts ?? 0) >= 1, 'a throttled start is retried');
  assert.equal(target.RetryPolicy?.MaximumEventAgeInSeconds, 60);
  const fn = byType('AWS::Lambda::Function').find(
    ([, r]) => r.Properties['FunctionName'] === 'aicr-control-plane-ci-forwarder',
  )?.[1].Properties;
  const env = (fn?.['Environment'] as { Variables: Record<string, string> }).Variables;
  const windowSeconds = Number(env['AICR_FORWARDER_WINDOW_SECONDS']);
  const quietSeconds = Number(env['AICR_FORWARDER_QUIET_SECONDS']);
  assert.ok(windowSeconds > 60, 'a busy window overlaps the next');
  // The next window resumes from the last pass's bookmark: well inside the API server's 75 s of watch history.
  assert.ok(
    quietSeconds > 2 && quietSeconds <= 10,
    `a quiet pass of ${quietSeconds} s outlasts the bookmark sent 2 s before its end`,
  );
  assert.ok(
    Number(fn?.['Timeout']) >= 320 + 15,
    'the timeout allows the always-watching shape (320 s windows) by parameters alone',
  );
  assert.equal(env['AICR_EKS_CLUSTER_NAME'], EXAMPLE_PARAMS.eksClusterName);
});

test('every setting the template gives a function is one the function knows', () => {
  const known = new Set(Object.keys(ConfigSchema.shape));
  for (const [, f] of byType('AWS::Lambda::Function')) {
    const vars = Object.keys((f.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables);
    for (const v of vars.filter((k) => k.startsWith('AICR_') || k === 'LOG_LEVEL'))
      assert.ok(known.has(v), `${String(f.Properties['FunctionName'])}: ${v} is a known setting`);
  }
});

test('a fleet: every function is told the further clusters, and only the roles that talk to Kubernetes may describe clusters, and only when there is a fleet', () => {
  for (const [, f] of byType('AWS::Lambda::Function')) {
    const env = (f.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
    assert.deepEqual(env['AICR_FLEET_CLUSTERS'], { 'Fn::Join': [',', { Ref: 'FleetClusters' }] });
  }
  assert.deepEqual(template.Conditions['HasFleet'], {
    'Fn::Not': [{ 'Fn::Equals': [{ 'Fn::Join': ['', { Ref: 'FleetClusters' }] }, ''] }],
  });
  const [[id, policy]] = byType('AWS::IAM::ManagedPolicy') as [[string, Resource & { Condition?: string }]];
  assert.equal(id, 'FleetDescribePolicy');
  assert.equal(policy.Condition, 'HasFleet', 'no fleet, no permission');
  const roles = (policy.Properties['Roles'] as { Ref: string }[]).map((r) => r.Ref).sort();
  assert.deepEqual(
    roles,
    byType('AWS::EKS::AccessEntry')
      .map(([, r]) => (r.Properties['PrincipalArn'] as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0])
      .sort(),
  );
  const [statement] = (
    policy.Properties['PolicyDocument'] as { Statement: { Action: string; Resource: unknown; Condition?: unknown }[] }
  ).Statement;
  assert.equal(statement?.Action, 'eks:DescribeCluster');
  const fleet = ['gpu-train-a', 'gpu-train-b', 'inference'];
  assert.deepEqual(
    withList(statement?.Resource, 'FleetClusters', fleet),
    fleet.map((n) => `arn:*:eks:*:*:cluster/${n}`),
    "the fleet's clusters by name, and no other",
  );
  assert.deepEqual(
    statement?.Condition,
    { StringEquals: { 'aws:RequestedRegion': { Ref: 'AWS::Region' } } },
    "in the deployment's own region",
  );
  const outputs = (template as unknown as { Outputs: Record<string, unknown> }).Outputs;
  for (const role of roles)
    assert.ok(outputs[`${role}Arn`], `${role}'s ARN is an output, for the further clusters' access entries`);
});

test('EKS access entries map each Kubernetes-facing role to its own group', () => {
  const entries = byType('AWS::EKS::AccessEntry').map(([, r]) => r.Properties);
  const steps = queueViews();
  assert.deepEqual(
    entries.map((e) => JSON.stringify(e['PrincipalArn'])).sort(),
    ['ForwarderRole', ...steps.map((v) => `${v.stem}Role`)]
      .map((role) => JSON.stringify({ 'Fn::GetAtt': [role, 'Arn'] }))
      .sort(),
  );
  const groupOf = (role: string): unknown =>
    entries.find((e) => JSON.stringify(e['PrincipalArn']).includes(`"${role}"`))?.['KubernetesGroups'];
  assert.deepEqual(groupOf('ForwarderRole'), [IDENTITY_GROUP.forwarder]);
  assert.deepEqual(groupOf('ResolveRole'), [IDENTITY_GROUP.step('resolve')]);
  for (const v of steps)
    assert.deepEqual(
      groupOf(`${v.stem}Role`),
      v.steps.map((s) => IDENTITY_GROUP.step(s)),
      `${v.stem}Role maps to its steps' groups`,
    );
  for (const e of entries) assert.equal(e['ClusterName'], EXAMPLE_PARAMS.eksClusterName);
});

test('one ESM bundle per function; only the Kubernetes-facing one carries the Kubernetes client', async () => {
  const resolve = await zipEntry(join(dir, 'resolve.zip'), 'functions/resolve.mjs');
  const relay = await zipEntry(join(dir, 'relay.zip'), 'functions/relay.mjs');
  const forwarder = await zipEntry(join(dir, 'forwarder.zip'), 'functions/forwarder.mjs');
  // The lean Kubernetes client's mark: the server-side apply content type.
  assert.match(resolve, /apply-patch\+yaml/);
  assert.match(forwarder, /apply-patch\+yaml/);
  assert.doesNotMatch(relay, /apply-patch\+yaml|client-node/);
  assert.match(relay, /^import/m);
});

type AlarmProps = {
  AlarmName: string;
  AlarmDescription: string;
  Namespace?: string;
  MetricName?: string;
  Dimensions?: { Name: string; Value: unknown }[];
  AlarmActions?: unknown;
  Metrics?: {
    Id: string;
    Expression?: string;
    MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string; Value: unknown }[] } };
  }[];
};
const alarms = (): AlarmProps[] =>
  byType('AWS::CloudWatch::Alarm').map(([, r]) => r.Properties as unknown as AlarmProps);
/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');

test('OBS-3: the packaged template holds each alarm, its description naming a troubleshooting entry that exists', () => {
  const names = alarms()
    .map((a) => a.AlarmName.replace('aicr-control-plane-ci-', ''))
    .sort();
  const expected = [
    'stalled-needs-person',
    'stalled-retrying',
    'awaiting-approval',
    'credentials-stale',
    'forwarder-not-running',
    'kube-unreachable',
    'dead-letters',
    'aicr-job-pending',
    'aicr-job-failures',
    'oldest-message',
  ];
  for (const n of expected) assert.ok(names.includes(n), `alarm ${n} is in the template`);
  const anchors = new Set(
    readFileSync(join(ROOT, 'docs/troubleshooting.md'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('#'))
      .map((l) => anchorOf(l.replace(/^#+/, ''))),
  );
  for (const a of alarms()) {
    const entry = /docs\/troubleshooting\.md#([a-z0-9-]+)/.exec(a.AlarmDescription)?.[1];
    assert.ok(
      entry && anchors.has(entry),
      `${a.AlarmName}: its description names an entry of docs/troubleshooting.md (${a.AlarmDescription})`,
    );
    const topic = JSON.stringify(a.AlarmActions);
    assert.match(topic, /"(PageTopicArn|NotifyTopicArn)"/, `${a.AlarmName}: notifies a topic given as a parameter`);
  }
  const page = (n: string) =>
    JSON.stringify(alarms().find((a) => a.AlarmName.endsWith(n))?.AlarmActions).includes('PageTopicArn');
  assert.equal(page('stalled-needs-person'), true, 'a stall that needs a person pages');
  assert.equal(page('awaiting-approval'), false, 'a rollout awaiting approval notifies, never pages');
  for (const p of ['PageTopicArn', 'NotifyTopicArn'])
    assert.equal((template.Parameters[p] as { Default?: string }).Default, '', `${p} is a parameter, empty by default`);
});

test('OBS-3: every alarm on the control plane namespace watches a metric the code emits, under dimensions it emits', () => {
  const ours = alarms().filter((a) => a.Namespace === METRICS_NAMESPACE);
  assert.ok(ours.length >= 7);
  for (const a of ours) {
    const def = Object.values(METRIC).find((m) => m.name === a.MetricName);
    assert.ok(def, `${a.AlarmName}: ${String(a.MetricName)} is a metric of shared/observability/metrics.ts`);
    const dims = (a.Dimensions ?? []).map((d) => d.Name).sort();
    assert.ok(
      def.sets.some((s) => JSON.stringify(['service', ...s].sort()) === JSON.stringify(dims)),
      `${a.AlarmName}: dimensions ${dims.join(',')} are a set the code emits`,
    );
    assert.equal(
      a.Dimensions?.find((d) => d.Name === 'service')?.Value,
      'aicr-control-plane-ci',
      'the service dimension is the deployment (AICR_SERVICE_NAME)',
    );
  }
  const env = (
    byType('AWS::Lambda::Function')[0]?.[1].Properties['Environment'] as { Variables: Record<string, string> }
  ).Variables;
  assert.equal(env['AICR_SERVICE_NAME'], 'aicr-control-plane-ci');
  for (const a of alarms().filter((x) => x.Metrics))
    for (const m of a.Metrics ?? [])
      if (m.MetricStat)
        assert.match(
          m.MetricStat.Metric.Namespace,
          /^AWS\/(SQS|Lambda)$/,
          `${a.AlarmName}: metric math reads AWS's own queue and function metrics`,
        );
  const body = JSON.stringify(resources['Dashboard']?.Properties['DashboardBody']);
  const shown = [...body.matchAll(/\\"aicr-control-plane\\",\\"([A-Za-z_]+)\\"/g)].map((m) => m[1] ?? '');
  assert.ok(new Set(shown).size >= 10, 'the dashboard shows the control plane metrics');
  for (const name of shown) assert.ok(METRIC_NAMES.has(name), `dashboard metric ${name} is emitted`);
});

test('functions that talk to the cluster join its VPC only when subnets are given; the relay never does', () => {
  assert.deepEqual(template.Conditions['InVpc'], {
    'Fn::Not': [{ 'Fn::Equals': [{ 'Fn::Join': ['', { Ref: 'VpcSubnetIds' }] }, ''] }],
  });
  for (const [id, f] of byType('AWS::Lambda::Function')) {
    const vpc = JSON.stringify(f.Properties['VpcConfig'] ?? null);
    if (id === 'RelayLambdaFunction') assert.equal(vpc, 'null');
    else
      assert.equal(
        vpc,
        JSON.stringify({
          'Fn::If': [
            'InVpc',
            { SubnetIds: { Ref: 'VpcSubnetIds' }, SecurityGroupIds: { Ref: 'VpcSecurityGroupIds' } },
            { Ref: 'AWS::NoValue' },
          ],
        }),
        id,
      );
  }
  for (const [id, r] of byType('AWS::IAM::Role'))
    assert.equal(
      r.Properties['ManagedPolicyArns'],
      undefined,
      `${id}: no AWS managed policy (AWSLambdaVPCAccessExecutionRole grants logs on every log group)`,
    );
  const vpc = resources['VpcNetworkInterfacesPolicy'] as Resource & { Condition?: string };
  assert.equal(vpc.Condition, 'InVpc', 'only when the functions join the VPC');
  const inVpc = byType('AWS::Lambda::Function')
    .filter(([id]) => id !== 'RelayLambdaFunction')
    .map(([, f]) => (f.Properties['Role'] as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0])
    .sort();
  assert.deepEqual(
    (vpc.Properties['Roles'] as { Ref: string }[]).map((r) => r.Ref).sort(),
    inVpc,
    'every role of a function in the VPC, and not the relay',
  );
  const statements = (vpc.Properties['PolicyDocument'] as { Statement: { Action: string[]; Resource: unknown }[] })
    .Statement;
  assert.deepEqual(
    statements.map((st) => [st.Action, st.Resource]),
    [
      // Describe calls have no resource-level permissions.
      [['ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets'], '*'],
      [
        [
          'ec2:CreateNetworkInterface',
          'ec2:DeleteNetworkInterface',
          'ec2:AssignPrivateIpAddresses',
          'ec2:UnassignPrivateIpAddresses',
        ],
        { 'Fn::Sub': 'arn:${AWS::Partition}:ec2:${AWS::Region}:${AWS::AccountId}:*/*' },
      ],
    ],
  );
});
