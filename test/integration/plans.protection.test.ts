// PLAN-1 on the real API server: the chart's admission policy lets only the control plane's
// resolve identity create or change a plan ConfigMap in aicr-system. Everyone else, the test's
// cluster admin and the forwarder included, gets 403 with a message naming the rule and the
// fix; deleting a plan stays open, and ConfigMaps that are not plans are left alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { FIELD_MANAGER, LABEL, NAMESPACES, PLAN_ADMISSION, ROLE } from '../../shared/api/constants.ts';
import { KubeRequestError } from '../../shared/errors.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { forwarderKube, stepKube } from '../../harness/controlPlane.ts';
import { adminKubeConfig, uniqueName } from '../../harness/env.ts';
import { ensureCrds, waitFor } from '../../harness/runtime.ts';

const NS = NAMESPACES.system;
/** Any namespace but aicr-system: the policy selects that one only. */
const OTHER_NAMESPACE = 'default';
const PLAN_LABELS = { [LABEL.role]: ROLE.plan };
const core = (): CoreV1Api => adminKubeConfig().makeApiClient(CoreV1Api);
const created = new Set<string>();

interface Refusal {
  readonly code: number;
  readonly reason: string;
  readonly message: string;
}

// A type alias, not an interface, so it is also a WritableObject for the control plane's own port.
type TestConfigMap = {
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  data: Record<string, string>;
};

function configMap(labels: Record<string, string>, data: Record<string, string> = { payload: 'v1' }): TestConfigMap {
  const name = uniqueName('plan-test');
  created.add(name);
  return { metadata: { name, namespace: NS, labels }, data };
}

/** What the API server answered when it refused; fails the test when it accepted. */
async function refusal(request: Promise<unknown>): Promise<Refusal> {
  const err = await request.then(
    () => assert.fail('the API server accepted the request'),
    (e: unknown) => e as { code?: number; body?: string },
  );
  const status = JSON.parse(err.body ?? '{}') as { reason?: string; message?: string };
  return { code: err.code ?? 0, reason: status.reason ?? '', message: status.message ?? '' };
}

/** Refused by the plan policy itself: 403 Forbidden, naming the policy and carrying its message. */
function assertPlanRefusal(r: Refusal): void {
  assert.equal(r.code, 403);
  assert.equal(r.reason, 'Forbidden');
  assert.match(r.message, new RegExp(`ValidatingAdmissionPolicy '${PLAN_ADMISSION.name}' .*denied request`));
  assert.ok(r.message.endsWith(PLAN_ADMISSION.message), r.message);
}

/** The admin's read-modify-replace: an UPDATE as `kubectl edit` sends it. */
async function adminUpdate(name: string, change: (cm: V1ConfigMap) => V1ConfigMap): Promise<V1ConfigMap> {
  const cm = await core().readNamespacedConfigMap({ name, namespace: NS });
  return core().replaceNamespacedConfigMap({ name, namespace: NS, body: change(cm) });
}

const read = (name: string): Promise<V1ConfigMap | undefined> =>
  core()
    .readNamespacedConfigMap({ name, namespace: NS })
    .then(
      (cm) => cm,
      (e: unknown) => ((e as { code?: number }).code === 404 ? undefined : Promise.reject(e)),
    );

/** A plan written by the resolve step, as resolution will write it. */
async function planByResolve(): Promise<string> {
  const cm = configMap(PLAN_LABELS);
  await stepKube('resolve').create(KIND.configMap, cm);
  return cm.metadata.name;
}

/**
 * A policy just installed is enforced only once the API server has loaded it, a moment later:
 * probe with a dry-run create by the admin until it is refused (dry runs pass admission too).
 */
async function policyEnforced(): Promise<void> {
  await waitFor(
    'the plan admission policy to be enforced',
    async () => {
      try {
        await core().createNamespacedConfigMap({
          namespace: NS,
          body: { metadata: { name: 'plan-policy-probe', labels: PLAN_LABELS } },
          dryRun: 'All',
        });
        return undefined;
      } catch (err) {
        if ((err as { code?: number }).code === 403) return true;
        throw err;
      }
    },
    10_000,
  );
}

before(async () => {
  await ensureCrds();
  await policyEnforced();
});
after(async () => {
  for (const name of created)
    await core()
      .deleteNamespacedConfigMap({ name, namespace: NS })
      .catch(() => undefined);
});

test('PLAN-1 a cluster admin creating a plan ConfigMap in aicr-system is refused with 403 and the rule and its fix', async () => {
  const cm = configMap(PLAN_LABELS);
  assertPlanRefusal(await refusal(core().createNamespacedConfigMap({ namespace: NS, body: cm })));
  assert.equal(await read(cm.metadata.name), undefined, 'nothing was stored');
  // RBAC lets the forwarder create ConfigMaps in aicr-system (its checkpoints); plans it may not.
  const byForwarder = await forwarderKube()
    .create(KIND.configMap, configMap(PLAN_LABELS))
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(byForwarder instanceof KubeRequestError);
  assert.equal(byForwarder.status, 403);
});

test('PLAN-1 the resolve step creates a plan and changes it by patch and by server-side apply', async () => {
  const resolve = stepKube('resolve');
  const name = await planByResolve();
  await resolve.patch(KIND.configMap, name, NS, { data: { payload: 'v2' } });
  await resolve.apply(
    KIND.configMap,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: NS, labels: PLAN_LABELS },
      data: { payload: 'v3' },
    },
    { fieldManager: FIELD_MANAGER.resolve, force: true },
  );
  const stored = await read(name);
  assert.deepEqual(stored?.data, { payload: 'v3' });
  assert.equal(stored?.metadata?.labels?.[LABEL.role], ROLE.plan);
});

test('PLAN-1 an admin may neither change a plan, nor label an ordinary ConfigMap a plan, nor take the plan label off', async () => {
  const plan = await planByResolve();
  const tamper = (cm: V1ConfigMap): V1ConfigMap => ({ ...cm, data: { payload: 'edited by hand' } });
  assertPlanRefusal(await refusal(adminUpdate(plan, tamper)));
  const unlabel = (cm: V1ConfigMap): V1ConfigMap => ({ ...cm, metadata: { ...cm.metadata, labels: {} } });
  assertPlanRefusal(await refusal(adminUpdate(plan, unlabel)));
  // Holding a plan back from deletion with a finalizer of one's own is a change like any other.
  const hold = (cm: V1ConfigMap): V1ConfigMap => ({
    ...cm,
    metadata: { ...cm.metadata, finalizers: ['example.com/hold'] },
  });
  assertPlanRefusal(await refusal(adminUpdate(plan, hold)));
  const stored = await read(plan);
  assert.deepEqual(
    [stored?.data, stored?.metadata?.labels, stored?.metadata?.finalizers],
    [{ payload: 'v1' }, PLAN_LABELS, undefined],
  );

  const ordinary = configMap({});
  await core().createNamespacedConfigMap({ namespace: NS, body: ordinary });
  const { name } = ordinary.metadata;
  assertPlanRefusal(
    await refusal(adminUpdate(name, (cm) => ({ ...cm, metadata: { ...cm.metadata, labels: PLAN_LABELS } }))),
  );
  assert.deepEqual((await read(name))?.metadata?.labels, undefined);
});

test('PLAN-1 an admin may delete a plan, also in the foreground, where the garbage collector finishes the delete', async () => {
  const plain = await planByResolve();
  await core().deleteNamespacedConfigMap({ name: plain, namespace: NS });
  assert.equal(await read(plain), undefined);
  // A foreground delete leaves a finalizer for the garbage collector to take off: an update of the plan it must be let through.
  const foreground = await planByResolve();
  await core().deleteNamespacedConfigMap({ name: foreground, namespace: NS, propagationPolicy: 'Foreground' });
  await waitFor(
    'the foreground-deleted plan to be gone',
    async () => ((await read(foreground)) === undefined ? true : undefined),
    15_000,
  );
});

test('PLAN-1 ConfigMaps that are not plans, and plan-labelled ones outside aicr-system, are left alone', async () => {
  const ordinary = configMap({ [LABEL.role]: 'something-else' });
  const { name } = ordinary.metadata;
  await core().createNamespacedConfigMap({ namespace: NS, body: ordinary });
  await adminUpdate(name, (cm) => ({
    ...cm,
    data: { payload: 'v2' },
    metadata: { ...cm.metadata, labels: { [LABEL.role]: 'another' } },
  }));
  assert.deepEqual((await read(name))?.data, { payload: 'v2' });
  await core().deleteNamespacedConfigMap({ name, namespace: NS });

  const elsewhere = { metadata: { name: uniqueName('plan-test'), labels: PLAN_LABELS }, data: { payload: 'v1' } };
  await core().createNamespacedConfigMap({ namespace: OTHER_NAMESPACE, body: elsewhere });
  await core().replaceNamespacedConfigMap({
    name: elsewhere.metadata.name,
    namespace: OTHER_NAMESPACE,
    body: { ...elsewhere, data: { payload: 'v2' } },
  });
  await core().deleteNamespacedConfigMap({ name: elsewhere.metadata.name, namespace: OTHER_NAMESPACE });
});
