// The control plane's own identities against the promise that only a person approves (SEC-7):
// tried on the real API server as each step's group, and as an approver's account that has been
// put in a step's group (a binding gone wrong), so the admission policies are shown to hold by
// themselves, not only because RBAC refuses first. Each refusal is read from the API server's
// answer, and each boundary lets the product's own write of the same kind through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FINALIZER, GROUP_VERSION, IDENTITY_GROUP, KINDS, LABEL, RUNTIME_NAME } from '../../shared/api/constants.ts';
import { attackedRuntime } from '../helpers/attackedRuntime.ts';
import {
  type Identity,
  type Outcome,
  allowed,
  createAs,
  kubectlAs,
  refused,
  stepIdentity,
} from '../helpers/impersonate.ts';
import { kubectl } from '../../harness/runtime.ts';

const ROLLOUT = stepIdentity('rollout');
const DRIFT = stepIdentity('drift-check');
const RESOLVE = stepIdentity('resolve');
const ALICE: Identity = { user: 'alice', groups: ['system:authenticated'] };
/** An approver's account that is also in the rollout step's group: RBAC lets it approve, admission must not. */
const ALICE_AS_ROLLOUT: Identity = { user: 'alice', groups: ['system:authenticated', IDENTITY_GROUP.step('rollout')] };
const runtimeUID = attackedRuntime();

const NAME = 'aicr-rollout-sec7-attack';
const NOW = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

function rolloutBody(spec: Record<string, unknown> = {}, name = NAME): Record<string, unknown> {
  return {
    apiVersion: GROUP_VERSION,
    kind: KINDS.runtimeRollout.kind,
    metadata: { name, labels: { [LABEL.schemaVersion]: '1' } },
    spec: {
      runtimeUID: runtimeUID(),
      type: 'Upgrade',
      toPlan: 'aicr-plan-0000000000000000',
      steps: [],
      ...spec,
    },
  };
}

const patchRollout = (who: Identity, body: Record<string, unknown>, dryRun = true): Promise<Outcome> =>
  kubectlAs(who, [
    'patch',
    KINDS.runtimeRollout.plural,
    NAME,
    '--type=merge',
    ...(dryRun ? ['--dry-run=server'] : []),
    '-p',
    JSON.stringify(body),
  ]);

const patchRuntime = (who: Identity, body: Record<string, unknown>): Promise<Outcome> =>
  kubectlAs(who, [
    'patch',
    KINDS.clusterRuntime.plural,
    RUNTIME_NAME,
    '--type=merge',
    '--dry-run=server',
    '-p',
    JSON.stringify(body),
  ]);

/** Writes the rollout's status as the rollout step would (through the status subresource). */
const patchStatus = (status: Record<string, unknown>): Promise<string> =>
  kubectl(
    'patch',
    KINDS.runtimeRollout.plural,
    NAME,
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status }),
  );

/** Records the control plane's refusal of `approval` as the rollout step does: in status only. */
async function refuseInStatus(approval: { approvedBy: string; approvedAt: string }): Promise<void> {
  await patchStatus({
    approval: { state: 'Refused', ...approval, reason: 'RegistryCredentialsStale', message: 'refused for the test' },
  });
}

test('SEC-7 no identity of the control plane approves a rollout: not on create, not by a later write, not with an approver account in its group', async () => {
  await kubectl('delete', KINDS.runtimeRollout.plural, NAME, '--ignore-not-found');
  const approval = { approvedBy: ROLLOUT.user, approvedAt: NOW() };
  refused(
    await createAs(ROLLOUT, rolloutBody({ approval }, `${NAME}-pre`)),
    /a rollout is created without spec\.approval, spec\.acknowledgements, spec\.revocation, spec\.retry or spec\.disruption/,
    'the rollout step creating a rollout already approved',
  );
  refused(
    await createAs(ROLLOUT, rolloutBody({ disruption: { approvedBy: ROLLOUT.user, approvedAt: NOW() } }, `${NAME}-d`)),
    /a rollout is created without/,
    'the rollout step creating a rollout already allowed to disrupt GPU work',
  );
  allowed(await createAs(ROLLOUT, rolloutBody(), false), 'the rollout step creating a rollout without approval');
  try {
    refused(await patchRollout(ROLLOUT, { spec: { approval } }), /forbidden/i, 'the rollout step approving (RBAC)');
    refused(
      await patchRollout(ROLLOUT, { metadata: { labels: { x: 'y' } } }),
      /forbidden/i,
      'the rollout step changing a rollout it created at all (RBAC: no patch)',
    );
    const asApprover = { approvedBy: 'alice', approvedAt: NOW() };
    for (const [field, value] of [
      ['approval', asApprover],
      ['acknowledgements', [{ release: 'gpu-operator', acknowledgedBy: 'alice', acknowledgedAt: NOW() }]],
      ['revocation', { revokedBy: 'alice', revokedAt: NOW() }],
      ['retry', { requestedBy: 'alice', requestedAt: NOW() }],
      ['disruption', { approvedBy: 'alice', approvedAt: NOW() }],
    ] as const)
      refused(
        await patchRollout(ALICE_AS_ROLLOUT, { spec: { [field]: value } }),
        /alice is an identity of the control plane: only a person writes spec\.approval, spec\.acknowledgements/,
        `an approver account in the rollout step's group writing spec.${field}`,
      );
    allowed(await patchRollout(ALICE, { spec: { approval: asApprover } }), 'an approver approving as themselves');
  } finally {
    await kubectl('delete', KINDS.runtimeRollout.plural, NAME, '--ignore-not-found');
  }
});

test('SEC-7 APR-2 a refusal is final for its approval: an approver replaces a refused approval with a new one, never an accepted or pending one', async () => {
  await kubectl('delete', KINDS.runtimeRollout.plural, NAME, '--ignore-not-found');
  allowed(await createAs(ROLLOUT, rolloutBody(), false), 'the rollout step creating a rollout');
  try {
    const first = { approvedBy: 'alice', approvedAt: '2026-12-07T09:00:00Z' };
    allowed(await patchRollout(ALICE, { spec: { approval: first } }, false), 'the first approval');
    const second = { approvedBy: 'alice', approvedAt: NOW() };
    refused(
      await patchRollout(ALICE, { spec: { approval: second } }),
      /is already approved by alice at 2026-12-07T09:00:00Z/,
      'replacing an approval the control plane has not refused',
    );
    await refuseInStatus({ approvedBy: 'alice', approvedAt: '2026-12-07T08:00:00Z' });
    refused(
      await patchRollout(ALICE, { spec: { approval: second } }),
      /is already approved by alice/,
      'replacing an approval when the refusal in status is about another one',
    );
    await refuseInStatus(first);
    refused(
      await patchRollout(ALICE_AS_ROLLOUT, { spec: { approval: second } }),
      /is an identity of the control plane/,
      'the rollout step replacing a refused approval',
    );
    allowed(await patchRollout(ALICE, { spec: { approval: second } }), 'an approver replacing the refused approval');
  } finally {
    await kubectl('delete', KINDS.runtimeRollout.plural, NAME, '--ignore-not-found');
  }
});

test("SEC-7 the runtime's intent is a person's: no identity of the control plane changes its spec, labels or annotations; the rollout step still adds its finalizer", async () => {
  assert.ok(runtimeUID());
  const gates = [
    { spec: { validation: { deployment: 'Disabled' } } },
    { spec: { paused: true } },
    { spec: { workloads: { selector: 'team=none' } } },
    { spec: { adoption: { runtimeUID: '33333333-3333-4333-8333-333333333333' } } },
    { metadata: { labels: { 'operator.aicr.run/forged': 'x' } } },
    { metadata: { annotations: { 'operator.aicr.run/forged': 'x' } } },
  ];
  for (const body of gates) {
    refused(
      await patchRuntime(ROLLOUT, body),
      /aicr-step-rollout is an identity of the control plane: it writes only the finalizers and status of ClusterRuntime/,
      `the rollout step writing ${JSON.stringify(body)}`,
    );
    refused(await patchRuntime(DRIFT, body), /forbidden/i, `the drift check writing ${JSON.stringify(body)} (RBAC)`);
  }
  refused(
    await patchRuntime(ROLLOUT, { spec: { validation: { deployment: 'Disabled' } } }),
    /it writes only the finalizers and status of ClusterRuntime/,
    'the rollout step switching deployment validation off',
  );
  // A person's account in a step group, with the rights to patch runtimes: admission alone refuses it.
  refused(
    await patchRuntime(
      { user: 'bob', groups: ['system:authenticated', IDENTITY_GROUP.step('resolve')] },
      { spec: { validation: { deployment: 'Disabled' } } },
    ),
    /bob is an identity of the control plane/,
    "an account in the resolve step's group switching validation off",
  );
  refused(
    await createAs(RESOLVE, {
      apiVersion: GROUP_VERSION,
      kind: KINDS.clusterRuntime.kind,
      metadata: { name: 'sec7-forged' },
      spec: { aicrVersion: 'v0.11.1' },
    }),
    /forbidden|people create ClusterRuntimes/i,
    'a step creating a runtime',
  );
  allowed(
    await patchRuntime(ROLLOUT, { metadata: { finalizers: [FINALIZER.cleanup] } }),
    'the rollout step adding its cleanup finalizer',
  );
  allowed(
    await patchRuntime(
      { user: 'bob', groups: ['system:authenticated'] },
      { spec: { validation: { deployment: 'Disabled' } } },
    ),
    'a person with rights to the runtime switching validation off',
  );
});

test('SEC-11 the control plane removes a rollout only once it has ended: a stolen rollout role cannot erase the record of one in flight', async () => {
  await kubectl('delete', KINDS.runtimeRollout.plural, NAME, '--ignore-not-found');
  allowed(await createAs(ROLLOUT, rolloutBody(), false), 'the rollout step creating a rollout');
  const remove = (who: Identity): Promise<Outcome> =>
    kubectlAs(who, ['delete', KINDS.runtimeRollout.plural, NAME, '--dry-run=server']);
  try {
    refused(
      await remove(ROLLOUT),
      new RegExp(
        `aicr-step-rollout is an identity of the control plane: it removes only rollouts that have ended, and rollout ${NAME} has not`,
      ),
      'the rollout step removing a rollout in flight',
    );
    refused(await remove(DRIFT), /forbidden/i, 'the drift check removing a rollout (RBAC)');
    await patchStatus({ outcome: 'Expired' });
    allowed(await remove(ROLLOUT), 'the rollout step retiring an ended rollout');
  } finally {
    await kubectl('delete', KINDS.runtimeRollout.plural, NAME, '--ignore-not-found');
  }
});
