// The token-refresh step's decisions against an in-memory stand-in for the API (the cluster tests
// are test/integration/registry.tokenRefresh.test.ts). The EKS Argo CD capability is decided at
// unit level: moto serves no eks ListCapabilities or DescribeCapability (404), so the managed
// case is given by the configuration (argocd.mode managed) or by a capability answer passed in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, ARGOCD_REGISTRY_SECRET, CONFIGURATION, FIELD_MANAGER } from '../../shared/api/constants.ts';
import { ConfigurationSchema } from '../../shared/configuration/schema.ts';
import type { GenericObject, RuntimeObject } from '../../shared/kube/kinds.ts';
import type { KubePort, WritableObject } from '../../shared/kube/port.ts';
import { staleCredentials } from '../../shared/rollout/io/registryFreshness.ts';
import { credentialsHandling } from '../../shared/steps/tokenRefresh/handling.ts';
import { runTokenRefresh } from '../../shared/steps/tokenRefresh/index.ts';
import { type Cadence, dueBecause, judge, nextDue, passwordOf } from '../../shared/steps/tokenRefresh/secret.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import { captureLogger } from '../../harness/logs.ts';
import { configurationData } from '../../harness/configurationData.ts';

const HOUR = 3_600_000;
const NOW = new Date('2026-11-30T12:00:00Z');
const SHAPE = { url: 'reg.example.com/aicr', plainHttp: false };
const KEY = `${ARGOCD_REGISTRY_SECRET.namespace}/${ARGOCD_REGISTRY_SECRET.name}`;
const b64 = (s: string): string => Buffer.from(s).toString('base64');

function configuration(values: Record<string, unknown>): ReturnType<typeof ConfigurationSchema.parse> {
  return ConfigurationSchema.parse(values);
}

/** A Secret as the API returns it: written by `manager`, with these annotations. */
function secret(manager: string, notes: Record<string, string>, password = 'pw'): GenericObject {
  const data = {
    url: b64(`oci://${SHAPE.url}`),
    type: b64('oci'),
    username: b64('AWS'),
    password: b64(password),
  };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: ARGOCD_REGISTRY_SECRET.name,
      namespace: ARGOCD_REGISTRY_SECRET.namespace,
      uid: 'u',
      resourceVersion: '1',
      labels: { 'argocd.argoproj.io/secret-type': 'repo-creds', 'app.kubernetes.io/managed-by': 'aicr-operator' },
      annotations: notes,
      managedFields: [{ manager, operation: 'Apply', fieldsV1: { 'f:data': { 'f:password': {} } } }],
    },
    data,
  };
}

function kubeWith(objects: Record<string, WritableObject | GenericObject>): KubePort & { applied: WritableObject[] } {
  const applied: WritableObject[] = [];
  const unused = (): Promise<never> => Promise.reject(new Error('not used'));
  return {
    applied,
    get: <T>(_: unknown, name: string, ns?: string) => Promise.resolve(objects[`${ns}/${name}`] as T),
    apply: <T>(_: unknown, obj: WritableObject) => {
      applied.push(obj);
      return Promise.resolve(obj as T);
    },
    applyStatus: unused,
    list: unused,
    watch: unused,
    create: unused,
    update: unused,
    patch: unused,
    delete: unused,
  };
}

function configMap(values: Record<string, unknown>): WritableObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CONFIGURATION.name, namespace: CONFIGURATION.namespace },
    data: configurationData(values),
  };
}

const AWS_MANAGED = { registry: { repository: SHAPE.url, auth: { mode: 'aws' } }, argocd: { mode: 'managed' } };
const fresh = {
  [ANNOTATION.tokenExpiresAt]: new Date(NOW.getTime() + 11 * HOUR).toISOString(),
  [ANNOTATION.tokenRefreshedAt]: new Date(NOW.getTime() - HOUR).toISOString(),
};
const cadence: Cadence = { now: NOW.getTime(), intervalMs: 6 * HOUR, staleWithinMs: HOUR };

test('REG-4 EKS-managed Argo CD (unit level: moto serves no eks ListCapabilities): credentials are handled by AWS, in configuration or by the capability answer', () => {
  const managed = credentialsHandling(configuration(AWS_MANAGED));
  assert.equal(managed.writes, false);
  assert.match(
    managed.writes ? '' : managed.why,
    /EKS capability, .*: registry credentials are handled by AWS, and the control plane creates or overwrites no Secret argocd\/aicr-registry/,
  );
  const selfManaged = configuration({ registry: { repository: SHAPE.url, auth: { mode: 'aws' } } });
  assert.equal(credentialsHandling(selfManaged).writes, true);
  assert.equal(
    credentialsHandling(selfManaged, 'present').writes,
    false,
    'a capability EKS reports wins over the configuration',
  );
  const statics = credentialsHandling(configuration({ registry: { repository: SHAPE.url, auth: { mode: 'static' } } }));
  assert.match(
    statics.writes ? '' : statics.why,
    /^registry\.auth\.mode static: Argo CD's registry credentials are kept by a person/,
  );
});

test('REG-4 EKS-managed Argo CD (unit level): the step neither creates nor overwrites the Secret, ours or not, and the rollout step does not call it stale', async () => {
  const expired = { [ANNOTATION.tokenExpiresAt]: new Date(NOW.getTime() - HOUR).toISOString() };
  for (const present of [undefined, secret('kubectl-create', {}), secret(FIELD_MANAGER.tokenRefresh, expired)]) {
    const kube = kubeWith({
      [`${CONFIGURATION.namespace}/${CONFIGURATION.name}`]: configMap(AWS_MANAGED),
      ...(present ? { [KEY]: present } : {}),
    });
    const { log, records } = captureLogger();
    const runtime = { metadata: { name: 'cluster', uid: 'r', resourceVersion: '1' } } as RuntimeObject;
    const report = await runTokenRefresh({
      kube,
      log,
      now: () => NOW,
      timings: DEFAULT_TIMINGS,
      runtime,
      item: { v: 1, step: 'token-refresh', runtime: { name: 'cluster', uid: 'r' }, cause: 'ADDED', attempt: 1 },
    });
    assert.deepEqual(kube.applied, [], 'nothing written');
    assert.deepEqual(report, {});
    assert.ok(records().some((r) => String(r['why']).includes('handled by AWS')));
    assert.equal(
      await staleCredentials(kube, configuration(AWS_MANAGED), { now: NOW, staleWithinMs: HOUR }),
      undefined,
    );
  }
});

test('REG-4 a Secret the step did not write is foreign, whatever its labels; one it wrote is judged by its shape and times', () => {
  const foreign = judge(secret('kubectl-client-side-apply', fresh), SHAPE);
  assert.equal(foreign.state, 'foreign');
  assert.equal(dueBecause(foreign, cadence), undefined, 'never written over');
  const ours = judge(secret(FIELD_MANAGER.tokenRefresh, fresh), SHAPE);
  assert.equal(ours.state === 'ours' && ours.intact, true);
  assert.equal(dueBecause(ours, cadence), undefined);
  assert.equal(dueBecause(judge(undefined, SHAPE), cadence), 'absent');
  assert.equal(dueBecause(ours, { ...cadence, requested: 'r1' }), 'requested');
  assert.equal(dueBecause(ours, { ...cadence, now: NOW.getTime() + 5 * HOUR + 1 }), 'interval');
  assert.equal(dueBecause(ours, { ...cadence, now: NOW.getTime() + 10 * HOUR + 1 }), 'expiring');
  assert.equal(dueBecause(judge(secret(FIELD_MANAGER.tokenRefresh, fresh, ''), SHAPE), cadence), 'edited');
  const edited = secret(FIELD_MANAGER.tokenRefresh, fresh);
  (edited.metadata['managedFields'] as unknown[]).push({
    manager: 'kubectl-edit',
    operation: 'Update',
    fieldsV1: { 'f:data': { 'f:password': {} } },
  });
  assert.equal(dueBecause(judge(edited, SHAPE), cadence), 'edited');
  const added = secret(FIELD_MANAGER.tokenRefresh, fresh);
  (added.metadata['managedFields'] as unknown[]).push({
    manager: 'kubectl-patch',
    operation: 'Update',
    fieldsV1: { 'f:data': { 'f:project': {} } },
  });
  assert.equal(
    dueBecause(judge(added, SHAPE), cadence),
    undefined,
    'a key only someone else set is theirs, and no reason to write again',
  );
  assert.equal(nextDue(NOW.getTime(), NOW.getTime() + 12 * HOUR, cadence), NOW.getTime() + 6 * HOUR);
  assert.equal(
    nextDue(NOW.getTime(), NOW.getTime() + 3 * HOUR, cadence),
    NOW.getTime() + 2 * HOUR,
    'a short-lived token is refreshed before it goes stale',
  );
});

test('REG-4 only an ECR token of the form AWS:<password> is used; any other shape is refused', () => {
  assert.equal(passwordOf(b64('AWS:s3cr3t:with:colons')), 's3cr3t:with:colons');
  for (const bad of [b64('AWS:'), b64('nocolon'), b64('other:pw'), b64(':pw'), '', '!!!'])
    assert.equal(passwordOf(bad), undefined, bad);
});
