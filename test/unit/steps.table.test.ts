// The step table is the one place a step is declared: everything else is derived from it or
// checked here against it, so a step missing anywhere fails the suite.
import { test } from 'node:test';
import { ConfigurationSchema } from '../../shared/configuration/schema.ts';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { parse, type Tags } from 'yaml';
import {
  AICR_RUNNER_SERVICE_ACCOUNT,
  AICR_SNAPSHOT_SERVICE_ACCOUNT,
  AICR_VALIDATE_SERVICE_ACCOUNT,
  DOMAIN_CONDITIONS,
  FIELD_MANAGER,
  IDENTITY_GROUP,
  NAMESPACES,
  STEP,
} from '../../shared/api/constants.ts';
import { ConfigSchema } from '../../shared/aws/environment.ts';
import { RUNNERS } from '../../shared/steps/runners.ts';
import type { KubeRule } from '../../shared/api/kubeRule.ts';
import { CONDITION_OWNER, QUEUE_NAMES, STEP_TABLE, queueSettings } from '../../shared/steps/table.ts';
import { stepRules } from '../../shared/rbac/stepRules.ts';
import { ownerTable, ownerTableIn } from '../../shared/steps/ownerTable.ts';
import { renderChart, type RenderedObject } from '../../harness/chart.ts';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const pascal = (s: string): string => s.replace(/(^|-)([a-z])/g, (_, __: string, c: string) => c.toUpperCase());

// CloudFormation's short forms, kept as the long forms so references can be compared.
const cfnTags: Tags = [
  { tag: '!Ref', resolve: (v: string) => ({ Ref: v }) },
  { tag: '!GetAtt', resolve: (v: string) => ({ 'Fn::GetAtt': v.split('.') }) },
  { tag: '!Sub', resolve: (v: string) => ({ 'Fn::Sub': v }) },
];
interface Sls {
  provider: { environment: Record<string, unknown> };
  functions: Record<
    string,
    {
      handler: string;
      timeout: number;
      role: string;
      environment?: Record<string, unknown>;
      events?: { sqs?: { arn: unknown } }[];
    }
  >;
  resources: { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
}
const sls = parse(read('serverless.yml'), { customTags: cfnTags }) as Sls;
const resources = sls.resources.Resources;
const QUEUE_FED_HELPERS = new Set(['relay']);

/** A value's default, by its dotted path in the chart's values. */
function defaultValue(path: string): string {
  const value = path
    .split('.')
    .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], ConfigurationSchema.parse({}));
  return String(value);
}

test('every step has a runner, and runners exist only for steps of the table', () => {
  assert.deepEqual(Object.keys(RUNNERS).sort(), STEP_TABLE.map((r) => r.name).sort());
});

test('each domain condition has exactly one owning row', () => {
  const owners = new Map<string, string>();
  for (const row of STEP_TABLE) {
    for (const type of row.owns) {
      assert.equal(owners.get(type), undefined, `${type} is owned by ${owners.get(type)} and ${row.name}`);
      owners.set(type, row.name);
    }
  }
  for (const type of DOMAIN_CONDITIONS) assert.equal(CONDITION_OWNER[type], owners.get(type), `${type}'s owner`);
  assert.deepEqual(
    [...owners.keys()].sort(),
    [...DOMAIN_CONDITIONS].sort(),
    'every domain condition has a step that writes it',
  );
});

test("docs/conditions.md names each condition's owner and field manager as the rows do (run npm run gen:docs)", () => {
  const doc = read('docs/conditions.md');
  const at = ownerTableIn(doc);
  assert.ok(at, 'docs/conditions.md has the owners table');
  assert.equal(doc.split('\n').slice(at.start, at.end).join('\n'), ownerTable());
});

test("each step writes under its own field manager, distinct from every other and from the summary; the named ones are exactly the rows'", () => {
  const managers: string[] = STEP_TABLE.map((r) => r.fieldManager);
  assert.equal(new Set(managers).size, managers.length);
  assert.ok(!managers.includes(FIELD_MANAGER.summary));
  const named = Object.values(FIELD_MANAGER).filter((m) => m !== FIELD_MANAGER.summary);
  assert.deepEqual([...named].sort(), [...managers].sort(), "FIELD_MANAGER's step entries are the rows' managers");
  assert.deepEqual(Object.values(STEP).sort(), STEP_TABLE.map((r) => r.name).sort(), 'every name in STEP has its row');
});

test('each queue has a handler in functions/ that runs exactly its steps', () => {
  const files = readdirSync(new URL('functions/', root)).map((f) => f.replace(/\.ts$/, ''));
  for (const queue of QUEUE_NAMES) {
    assert.ok(files.includes(queue), `functions/${queue}.ts`);
    const src = read(`functions/${queue}.ts`);
    const steps = STEP_TABLE.filter((r) => r.queue === queue).map((r) => r.name);
    const runs =
      /createStepHandler\(\{([^}]*)\}/
        .exec(src)?.[1]
        ?.split(',')
        .map((s) => s.split(':')[0]?.trim().replace(/^'|'$/g, '') ?? '')
        .filter(Boolean) ?? [];
    assert.deepEqual(runs.sort(), steps.sort(), `functions/${queue}.ts runs ${steps.join(', ')}`);
    assert.match(
      src,
      new RegExp(`stepDeps\\('${queue}'\\)`),
      `functions/${queue}.ts builds its deps for queue ${queue}`,
    );
  }
  const stepFunctions = Object.keys(sls.functions).filter(
    (f) => sls.functions[f]?.events?.some((e) => e.sqs) && !QUEUE_FED_HELPERS.has(f),
  );
  assert.deepEqual(stepFunctions.sort(), [...QUEUE_NAMES].sort(), 'queue-fed functions are exactly the step queues');
});

test('serverless.yml gives each queue a function, a FIFO queue redriving to the FIFO step DLQ, its settings and its rights', () => {
  for (const queue of QUEUE_NAMES) {
    const fn = sls.functions[queue];
    assert.ok(fn, `function ${queue}`);
    const timeout = Math.max(...STEP_TABLE.filter((r) => r.queue === queue).map((r) => r.timeoutSeconds));
    assert.equal(fn.handler, `functions/${queue}.handler`);
    assert.equal(fn.timeout, timeout, `${queue} timeout from the table`);
    const q = resources[`${pascal(queue)}Queue`]?.Properties;
    const dlq = resources['StepDlq']?.Properties;
    assert.ok(q && dlq, `${pascal(queue)}Queue and the step dead-letter queue`);
    assert.deepEqual((q['RedrivePolicy'] as { deadLetterTargetArn: unknown }).deadLetterTargetArn, {
      'Fn::GetAtt': ['StepDlq', 'Arn'],
    });
    assert.deepEqual(fn.events?.[0]?.sqs?.arn, { 'Fn::GetAtt': [`${pascal(queue)}Queue`, 'Arn'] });
    assert.equal(q['FifoQueue'], true);
    assert.equal(dlq['FifoQueue'], true);
    assert.ok(Number(q['VisibilityTimeout']) >= 6 * timeout, 'visibility at least six times the timeout');
    const names = queueSettings(queue);
    for (const key of [names.url, names.arn]) {
      assert.ok(key in (fn.environment ?? {}), `${key} in ${queue}'s environment`);
      assert.ok(key in ConfigSchema.shape, `${key} is a known setting`);
    }
    const role = JSON.stringify(resources[fn.role]?.Properties['Policies']);
    assert.ok(
      !role.includes('"StepDlq","Arn"'),
      `${fn.role} sends nothing to the dead-letter queue: only the queue's redrive does`,
    );
  }
});

test('the chart as helm renders it grants each step row exactly its rules, bound to its own group, and serverless maps its role there', async () => {
  const rbac = (await renderChart()).filter((o) => o.apiVersion === 'rbac.authorization.k8s.io/v1');
  const scope = (o: RenderedObject): string => `${o.metadata.namespace ?? '(cluster)'}/${o.metadata.name}`;
  for (const row of STEP_TABLE) {
    const group = IDENTITY_GROUP.step(row.name);
    const name = `aicr-step-${row.name}`;
    const rules: readonly KubeRule[] = stepRules(row);
    const scopes = [...new Set(rules.map((r) => r.namespace))];
    for (const namespace of scopes) {
      const role = rbac.find(
        (o) =>
          o.kind === (namespace ? 'Role' : 'ClusterRole') &&
          o.metadata.name === name &&
          o.metadata.namespace === namespace,
      );
      assert.ok(role, `the chart renders ${namespace ? 'Role' : 'ClusterRole'} ${namespace ?? ''}/${name}`);
      const want = rules
        .filter((r) => r.namespace === namespace)
        .map((r) => {
          // Each name the values hold is its default value.
          const names = [...(r.resourceNames ?? []), ...(r.resourceNamesFromValues ?? []).map(defaultValue)];
          return {
            apiGroups: r.apiGroups,
            resources: r.resources,
            ...(names.length > 0 ? { resourceNames: names } : {}),
            verbs: r.verbs,
          };
        });
      assert.deepEqual(role['rules'], want, `${scope(role)} holds exactly the rules of the ${row.name} row`);
      const binding = rbac.find(
        (o) => o.kind === `${role.kind}Binding` && o.metadata.name === name && o.metadata.namespace === namespace,
      );
      assert.deepEqual(
        binding?.['subjects'],
        [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
        `${scope(role)} is bound to ${group} only`,
      );
    }
    const entry = JSON.stringify(resources[`${pascal(row.queue)}AccessEntry`]?.Properties);
    assert.ok(entry.includes(`"${group}"`), `${pascal(row.queue)}AccessEntry maps to ${group}`);
  }
  const subjects = rbac.flatMap((o) => (o['subjects'] ?? []) as { kind: string; name: string; namespace?: string }[]);
  const granted = new Set(subjects.filter((s) => s.kind === 'Group').map((s) => s.name));
  assert.deepEqual(
    [...granted].sort(),
    [IDENTITY_GROUP.forwarder, ...STEP_TABLE.map((r) => IDENTITY_GROUP.step(r.name))].sort(),
    'the chart binds no other group',
  );
  // Besides the groups, only the ServiceAccounts AICR's Jobs run as: the runner in aicr-jobs, the snapshot agent in aicr-discovery, aicr validate in aicr-validation.
  const accounts = new Set(
    subjects.filter((s) => s.kind !== 'Group').map((s) => `${s.kind} ${s.namespace ?? ''}/${s.name}`),
  );
  assert.deepEqual([...accounts].sort(), [
    `ServiceAccount ${NAMESPACES.discovery}/${AICR_SNAPSHOT_SERVICE_ACCOUNT}`,
    `ServiceAccount ${NAMESPACES.jobs}/${AICR_RUNNER_SERVICE_ACCOUNT}`,
    `ServiceAccount ${NAMESPACES.validation}/${AICR_VALIDATE_SERVICE_ACCOUNT}`,
  ]);
});
