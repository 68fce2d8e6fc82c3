// Each function talks to Kubernetes as its own identity with only its step-table row's rights:
// the resolve step's requests show under its own group in the audit log, and one identity
// cannot do another's writes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { IDENTITY_GROUP, IDENTITY_USER, NAMESPACES } from '../../shared/api/constants.ts';
import { KubeRequestError } from '../../shared/errors.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { auditMark, controlPlaneEventsSince } from '../../harness/audit.ts';
import { forwarderKube, stepKube } from '../../harness/controlPlane.ts';
import { captureLogger } from '../../harness/logs.ts';
import { createRuntime, deleteRuntime, ensureCrds, getRuntime } from '../../harness/runtime.ts';
import { resolveItem, runResolveOnce } from '../../harness/steps.ts';

before(async () => {
  await ensureCrds();
  await deleteRuntime();
});
after(deleteRuntime);

test('the resolve step runs as its own identity: its reads and writes show under aicr:step:resolve', async () => {
  const rt = await createRuntime({ aicrVersion: 'v0.11.1' });
  const mark = auditMark();
  const result = await runResolveOnce(resolveItem(rt.metadata.uid), {
    kube: stepKube('resolve'),
    log: captureLogger().log,
  });
  assert.equal(result.writes, 1);
  const events = await controlPlaneEventsSince(mark);
  assert.ok(events.length >= 2, 'a read and the status write');
  for (const e of events) {
    assert.equal(e.impersonatedUser?.username, IDENTITY_USER.step('resolve'));
    assert.ok(e.impersonatedUser?.groups?.includes(IDENTITY_GROUP.step('resolve')));
    // Allowed: a 404 is a read of an output that is not there yet, never a refusal.
    assert.ok(![401, 403].includes(e.responseStatus?.code ?? 0), `${e.verb} ${e.requestURI} allowed`);
  }
  assert.ok((await getRuntime())?.status?.conditions?.some((c) => c.type === 'Resolved'));
});

// Resolve may write ConfigMaps in aicr-system (its plans), where the forwarder keeps its
// checkpoints, so the write it must not do is the snapshot step's: an agent Job in aicr-discovery.
test("a step cannot do another's writes: resolve cannot start the snapshot step's Jobs, the forwarder cannot write status", async () => {
  // RBAC answers before the body is validated, so a name is all the Job needs.
  const byResolve = await stepKube('resolve')
    .create(KIND.job, { metadata: { name: 'aicr-identity-probe', namespace: NAMESPACES.discovery } })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(byResolve instanceof KubeRequestError);
  assert.equal(byResolve.status, 403);
  assert.match(byResolve.message, /for aicr-step-resolve: http 403 Forbidden/);
  const rt = await getRuntime();
  assert.ok(rt);
  const byForwarder = await forwarderKube()
    .applyStatus(
      KIND.clusterRuntime,
      { metadata: { name: 'cluster', resourceVersion: rt.metadata.resourceVersion }, status: {} },
      { fieldManager: 'aicr-test', force: true },
    )
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(byForwarder instanceof KubeRequestError);
  assert.equal(byForwarder.status, 403);
});
