// The security boundaries around Applications and the people's verbs, tried as an attacker
// holding the control plane's identities or a person's would (see security.attacks.test.ts for
// how each attempt is made and checked): the rollout and drift-check identities write only their
// runtime's own Applications, and approving, acknowledging, revoking or retrying as someone else
// is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANNOTATION,
  ARGOCD,
  GROUP_VERSION,
  KINDS,
  LABEL,
  MANAGED_BY_VALUE,
  NAMESPACES,
  RUNTIME_NAME,
} from '../../shared/api/constants.ts';
import { attackedRuntime } from '../helpers/attackedRuntime.ts';
import { type AttackApplication, attackApplication } from '../helpers/attackApplication.ts';
import {
  type Identity,
  type Outcome,
  allowed,
  createAs,
  kubectlAs,
  refused,
  stepIdentity,
} from '../helpers/impersonate.ts';
import { getRuntime, kubectl } from '../../harness/runtime.ts';

const ROLLOUT = stepIdentity('rollout');
const DRIFT = stepIdentity('drift-check');
const runtimeUID = attackedRuntime();

const application = (name: string, opts: Partial<AttackApplication> = {}): Record<string, unknown> =>
  attackApplication(name, { ...opts, uid: opts.uid ?? runtimeUID() });

test("SEC-3 SEC-4 the rollout and drift-check identities write only their runtime's own Applications, in the configured AppProject, to argocd.namespaces on the configured cluster", async () => {
  for (const who of [ROLLOUT, DRIFT]) {
    allowed(
      await createAs(who, application('sec-owned')),
      `${who.user} writing an owned Application in project ${ARGOCD.project}`,
    );
    refused(
      await createAs(who, application('sec-default', { project: 'default' })),
      /names AppProject default, not aicr.*only into the configured AppProject/,
      `${who.user} writing into project default`,
    );
    refused(
      await createAs(who, application('sec-other', { uid: '00000000-0000-4000-8000-000000000000' })),
      /must carry ClusterRuntime cluster's UID/,
      `${who.user} writing another runtime's Application`,
    );
    refused(
      await createAs(who, application('sec-unowned', { uid: '' })),
      /is not one the control plane wrote|must carry ClusterRuntime cluster's UID|belongs to no runtime of this control plane/,
      `${who.user} writing an Application without an owner`,
    );
    refused(
      await createAs(who, application('sec-unlabelled', { managed: false })),
      /(is not one the control plane wrote|must carry ClusterRuntime cluster's UID).*managed-by/,
      `${who.user} writing an Application without the managed-by label`,
    );
    refused(
      await createAs(
        who,
        application('sec-wide', { destination: { server: ARGOCD.inClusterServer, namespace: 'kube-public' } }),
      ),
      /deploys to namespace kube-public, which is not listed \(the chart's argocd\.namespaces\)/,
      `${who.user} deploying into a namespace argocd.namespaces does not list`,
    );
    refused(
      await createAs(
        who,
        application('sec-far', { destination: { server: 'https://elsewhere.example', namespace: 'ns-x' } }),
      ),
      /deploys to another cluster than the configured one \(the chart's argocd\.destination\)/,
      `${who.user} deploying to another cluster`,
    );
    refused(
      await createAs(who, application('sec-named', { destination: { name: 'in-cluster', namespace: 'ns-x' } })),
      /deploys to another cluster than the configured one/,
      `${who.user} naming a cluster when the configuration names a server`,
    );
  }
  refused(
    await createAs(ROLLOUT, application('sec-finalized', { finalizer: true })),
    /resources finalizer/,
    'the finalizer without delete-rollout',
  );
  refused(
    await createAs(ROLLOUT, application('sec-finalized', { finalizer: true, deleteRollout: 'anything' })),
    /naming a rollout/,
    'the finalizer with a delete-rollout naming no rollout',
  );
  for (const rollout of ['aicr-rollout-0123456789abcdef-tpe000', 'aicr-removal-01234567-tpe000']) {
    allowed(
      await createAs(ROLLOUT, application('sec-finalized', { finalizer: true, deleteRollout: rollout })),
      `the finalizer beside delete-rollout ${rollout}, as a Remove step writes it`,
    );
  }
});

test("SEC-3 the control plane cannot change or delete a person's Application, an app-of-apps with the resources finalizer included", async () => {
  const person = application('sec-app-of-apps', { uid: '', managed: false, finalizer: true, project: 'default' });
  await kubectl(
    'delete',
    'application',
    'sec-app-of-apps',
    'sec-persons-app',
    'sec-other-runtimes',
    '-n',
    NAMESPACES.argocd,
    '--ignore-not-found',
    '--wait=false',
  );
  const created = await createAs({ user: 'admin', groups: ['system:masters'] }, person, false);
  allowed(created, "a person's app-of-apps");
  try {
    refused(
      await kubectlAs(ROLLOUT, [
        'delete',
        'application',
        'sec-app-of-apps',
        '-n',
        NAMESPACES.argocd,
        '--dry-run=server',
      ]),
      /is not one the control plane wrote|must carry ClusterRuntime cluster's UID|belongs to no runtime of this control plane/,
      'the rollout step deleting it',
    );
    const own = JSON.stringify({
      metadata: {
        annotations: { [ANNOTATION.runtimeUID]: runtimeUID() },
        labels: { [LABEL.managedBy]: MANAGED_BY_VALUE },
      },
    });
    const plain = application('sec-persons-app', { uid: '', managed: false, project: 'default' });
    allowed(
      await createAs({ user: 'admin', groups: ['system:masters'] }, plain, false),
      "a person's plain Application",
    );
    for (const who of [ROLLOUT, DRIFT]) {
      // The finalizer policy answers first for the app-of-apps; the ownership policy for the plain one.
      refused(
        await kubectlAs(who, [
          'patch',
          'application',
          'sec-app-of-apps',
          '-n',
          NAMESPACES.argocd,
          '--dry-run=server',
          '--type=merge',
          '-p',
          own,
        ]),
        /resources finalizer|is not one the control plane wrote|belongs to no runtime of this control plane|cannot get resource/,
        `${who.user} taking the app-of-apps over`,
      );
      // A server-side apply, as the steps write: a PATCH without a read first.
      const takeover = application('sec-persons-app', { project: 'default' });
      refused(
        await kubectlAs(who, ['apply', '--server-side', '--force-conflicts', '--dry-run=server', '-f', '-'], takeover),
        /is not one the control plane wrote|must carry ClusterRuntime cluster's UID|belongs to no runtime of this control plane/,
        `${who.user} taking a person's Application over without an adoption`,
      );
    }
    refused(
      await kubectlAs(ROLLOUT, [
        'delete',
        'application',
        'sec-persons-app',
        '-n',
        NAMESPACES.argocd,
        '--dry-run=server',
      ]),
      /is not one the control plane wrote|must carry ClusterRuntime cluster's UID|belongs to no runtime of this control plane/,
      "the rollout step deleting a person's Application",
    );
    const foreign = application('sec-other-runtimes', { uid: '00000000-0000-4000-8000-000000000000' });
    allowed(
      await createAs({ user: 'admin', groups: ['system:masters'] }, foreign, false),
      "another runtime's Application",
    );
    refused(
      await kubectlAs(ROLLOUT, [
        'delete',
        'application',
        'sec-other-runtimes',
        '-n',
        NAMESPACES.argocd,
        '--dry-run=server',
      ]),
      /belongs to no runtime of this control plane/,
      "the rollout step deleting another runtime's Application",
    );
  } finally {
    await kubectl(
      'delete',
      'application',
      'sec-persons-app',
      'sec-other-runtimes',
      '-n',
      NAMESPACES.argocd,
      '--ignore-not-found',
    );
    await kubectl(
      'patch',
      'application',
      'sec-app-of-apps',
      '-n',
      NAMESPACES.argocd,
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":null}}',
    ).catch(() => undefined);
    await kubectl('delete', 'application', 'sec-app-of-apps', '-n', NAMESPACES.argocd, '--ignore-not-found');
  }
});

test('SEC-6 approving, acknowledging, revoking or asking a retry as someone else is refused', async () => {
  const runtime = await getRuntime();
  assert.equal(runtime?.metadata?.name, RUNTIME_NAME);
  const name = 'aicr-rollout-sec6-attack';
  await kubectl('delete', KINDS.runtimeRollout.plural, name, '--ignore-not-found');
  const rollout = {
    apiVersion: GROUP_VERSION,
    kind: KINDS.runtimeRollout.kind,
    metadata: {
      name,
      labels: { [LABEL.schemaVersion]: '1' },
      ownerReferences: [
        {
          apiVersion: GROUP_VERSION,
          kind: KINDS.clusterRuntime.kind,
          name: RUNTIME_NAME,
          uid: runtimeUID(),
          controller: true,
        },
      ],
    },
    spec: { runtimeUID: runtimeUID(), type: 'Upgrade', toPlan: 'aicr-plan-0000000000000000', steps: [] },
  };
  allowed(await createAs(ROLLOUT, rollout, false), 'the rollout step creating a rollout');
  const now = new Date().toISOString();
  const alice: Identity = { user: 'alice', groups: ['system:authenticated'] };
  const bob: Identity = { user: 'bob', groups: ['system:authenticated'] };
  const write = (who: Identity, spec: Record<string, unknown>): Promise<Outcome> =>
    kubectlAs(who, [
      'patch',
      KINDS.runtimeRollout.plural,
      name,
      '--type=merge',
      '--dry-run=server',
      '-p',
      JSON.stringify({ spec }),
    ]);
  refused(
    await write(alice, { approval: { approvedBy: 'carol', approvedAt: now } }),
    /approvedBy/,
    'an approver approving as someone else',
  );
  refused(
    await write(bob, { approval: { approvedBy: 'bob', approvedAt: now } }),
    /approve/,
    'someone RBAC does not let approve, as themselves',
  );
  refused(
    await write(alice, { revocation: { revokedBy: 'carol', revokedAt: now } }),
    /revokedBy|revok/,
    'revoking as someone else',
  );
  refused(
    await write(alice, { retry: { requestedBy: 'carol', requestedAt: now } }),
    /requestedBy|retry/,
    'asking a retry as someone else',
  );
  refused(
    await write(DRIFT, { approval: { approvedBy: DRIFT.user, approvedAt: now } }),
    /forbidden/i,
    'the drift check approving (RBAC)',
  );
  allowed(
    await write(alice, { approval: { approvedBy: 'alice', approvedAt: now } }),
    'an approver approving as themselves',
  );
  await kubectl('delete', KINDS.runtimeRollout.plural, name, '--ignore-not-found');
});
