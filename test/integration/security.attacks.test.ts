// The security boundaries, tried as an attacker holding each of the control plane's identities
// would: every attempt goes to the real API server, impersonating that identity's group (as
// its EKS access entry maps it), and must be refused, by RBAC or by the chart's admission
// policies. Each refusal is checked by what the API server says, and each boundary also lets
// the product's own request of the same kind through (server-side dry run, so nothing runs),
// so a policy that refused everything would fail here too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANNOTATION,
  ARGOCD,
  CONFIGURATION,
  FORWARDER_CHECKPOINT,
  GROUP_VERSION,
  IDENTITY_GROUP,
  IDENTITY_USER,
  KINDS,
  LABEL,
  MANAGED_BY_VALUE,
  NAMESPACES,
  RUNTIME_NAME,
} from '../../shared/api/constants.ts';
import { STAGE, jobName } from '../../shared/aicr/stages.ts';
import { runJob } from '../../shared/aicr/jobSpec.ts';
import { ConfigurationSchema } from '../../shared/configuration/schema.ts';
import { applyConfiguration, REGISTRY_SECRET, ensureRegistrySecrets, testConfiguration, TEST_AICR_IMAGE } from '../helpers/configuration.ts';
import { testEnv } from '../helpers/env.ts';
import { type Identity, type Outcome, kubectlAs, stepIdentity } from '../helpers/impersonate.ts';
import { grantUsers } from '../helpers/rollouts.ts';
import { createRuntime, deleteRuntime, ensureCrds, getRuntime, kubectl } from '../helpers/runtime.ts';
import { validatorPins } from '../helpers/validatorPins.ts';

const SNAPSHOT = stepIdentity('snapshot');
const RESOLVE = stepIdentity('resolve');
const ROLLOUT = stepIdentity('rollout');
const DRIFT = stepIdentity('drift-check');
const FORWARDER: Identity = { user: IDENTITY_USER.forwarder, groups: [IDENTITY_GROUP.forwarder] };
const VALIDATE: Identity = { user: `system:serviceaccount:${NAMESPACES.validation}:aicr-validate`, groups: ['system:serviceaccounts', `system:serviceaccounts:${NAMESPACES.validation}`] };
const create = (who: Identity, body: Record<string, unknown>, dryRun = true): Promise<Outcome> => kubectlAs(who, ['create', ...(dryRun ? ['--dry-run=server'] : []), '-f', '-'], body);

function refused(o: Outcome, why: RegExp, what: string): void {
  assert.equal(o.ok, false, `${what} was refused`);
  assert.match(o.stderr, why, what);
}
function allowed(o: Outcome, what: string): void {
  assert.equal(o.ok, true, `${what} was allowed: ${o.stderr}`);
}

let runtimeUID = '';

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await applyConfiguration({ ...testConfiguration(), aicr: { ...(testConfiguration()['aicr'] as object), validatorImages: validatorPins() } });
  await ensureRegistrySecrets();
  await grantUsers();
  runtimeUID = (await createRuntime({ aicrVersion: 'v0.11.1' })).metadata?.uid ?? '';
  assert.ok(runtimeUID);
});

after(async () => {
  await deleteRuntime();
  await applyConfiguration();
});

const configuration = (): ReturnType<typeof ConfigurationSchema.parse> => ConfigurationSchema.parse({ ...testConfiguration(), aicr: { ...(testConfiguration()['aicr'] as object), validatorImages: validatorPins() } });

/** The Job the control plane itself makes for `stage`, with the pod spec changed by `edit`. */
function productJob(stage: (typeof STAGE)[keyof typeof STAGE], edit: (pod: Record<string, unknown>, container: Record<string, unknown>) => void = () => undefined): Record<string, unknown> {
  const args = stage === STAGE.validation ? ['validate', '--phase', 'deployment', '-n', NAMESPACES.validation] : stage === STAGE.snapshot ? ['snapshot'] : ['recipe'];
  const job = runJob({ stage, hash: 'sec0attack0000', run: 1, image: TEST_AICR_IMAGE, args, runtimeUID, configuration: configuration(), activeDeadlineSeconds: 60, ttlSecondsAfterFinished: 60, registryAuth: false }) as unknown as { metadata: { name: string }; spec: { template: { spec: Record<string, unknown> & { containers: Record<string, unknown>[] } } } };
  job.metadata.name = `${jobName(stage, 'sec0attack0000', 1)}`;
  const pod = job.spec.template.spec;
  const container = pod.containers[0];
  assert.ok(container);
  edit(pod, container);
  return job as unknown as Record<string, unknown>;
}

test('SEC-1 the snapshot identity runs only the pinned AICR image, as the snapshot agent, in the agent\'s own host shape', async () => {
  allowed(await create(SNAPSHOT, productJob(STAGE.snapshot)), "the product's own snapshot Job");
  refused(await create(SNAPSHOT, productJob(STAGE.snapshot, (_p, c) => (c['image'] = 'docker.io/library/busybox:latest'))), /image docker\.io\/library\/busybox:latest is not pinned by the configuration.*aicr\.versions/, 'a foreign image, privileged');
  refused(await create(SNAPSHOT, productJob(STAGE.snapshot, (_p, c) => (c['image'] = 'ghcr.io/nvidia/aicr:v0.11.2'))), /is not pinned/, 'an AICR image the configuration does not pin');
  refused(await create(SNAPSHOT, productJob(STAGE.snapshot, (p) => (p['serviceAccountName'] = 'default'))), /run as ServiceAccount aicr-snapshot-agent, not default/, 'another ServiceAccount');
  refused(await create(SNAPSHOT, productJob(STAGE.snapshot, (p) => (p['hostNetwork'] = true))), /nothing more of the host/, "the host's network");
  refused(
    await create(
      SNAPSHOT,
      productJob(STAGE.snapshot, (p, c) => {
        p['volumes'] = [...(p['volumes'] as unknown[]), { name: 'root', hostPath: { path: '/' } }];
        c['volumeMounts'] = [...(c['volumeMounts'] as unknown[]), { name: 'root', mountPath: '/host' }];
      }),
    ),
    /nothing more of the host/,
    "the host's root file system",
  );
  refused(
    await create(SNAPSHOT, productJob(STAGE.snapshot, (_p, c) => (c['volumeMounts'] = (c['volumeMounts'] as Record<string, unknown>[]).map((m) => ({ ...m, readOnly: false }))))),
    /nothing more of the host/,
    'a host path mounted writable',
  );
  refused(await create(SNAPSHOT, { ...productJob(STAGE.snapshot), metadata: { name: 'sec-other-namespace', namespace: NAMESPACES.jobs } }), /forbidden/i, 'a Job in another namespace (RBAC)');
  refused(await create(SNAPSHOT, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sec-pod', namespace: NAMESPACES.discovery }, spec: { containers: [{ name: 'x', image: TEST_AICR_IMAGE }] } }), /forbidden/i, 'a Pod of its own (RBAC)');
});

test('SEC-1 the resolve and rollout identities run AICR unprivileged as aicr-runner in aicr-jobs, and in aicr-validation only aicr validate as aicr-validate', async () => {
  allowed(await create(RESOLVE, productJob(STAGE.recipe)), "the product's own recipe Job");
  allowed(await create(ROLLOUT, productJob(STAGE.validation)), "the product's own validation Job");
  refused(await create(RESOLVE, productJob(STAGE.recipe, (_p, c) => (c['securityContext'] = { privileged: true }))), /use no host namespaces, privilege/, 'a privileged recipe Job');
  refused(await create(RESOLVE, productJob(STAGE.recipe, (p) => (p['hostPID'] = true))), /use no host namespaces/, "the host's PID namespace outside aicr-discovery");
  refused(await create(RESOLVE, productJob(STAGE.recipe, (p) => (p['serviceAccountName'] = 'default'))), /run as ServiceAccount aicr-runner, not default/, 'another ServiceAccount in aicr-jobs');
  refused(await create(ROLLOUT, productJob(STAGE.validation, (_p, c) => (c['args'] = ['snapshot']))), /a run as aicr-validate is aicr validate --phase deployment, nothing else/, 'another aicr command as aicr-validate');
  refused(await create(ROLLOUT, productJob(STAGE.validation, (_p, c) => (c['image'] = 'docker.io/library/busybox:latest'))), /is not pinned/, 'a foreign image as aicr-validate');
  refused(await create(ROLLOUT, productJob(STAGE.validation, (p) => (p['serviceAccountName'] = 'aicr-validator'))), /run as ServiceAccount aicr-validate, not aicr-validator/, "a Job as AICR's cluster-admin validators");
});

test("SEC-1 aicr validate's identity runs AICR's validators only at the tags aicr.validatorImages pins, as aicr-validator, without host access", async () => {
  const [tag] = Object.keys(validatorPins());
  assert.ok(tag, 'a validator image is pinned');
  const validator = (image: string, sa = 'aicr-validator', extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'sec-validator', namespace: NAMESPACES.validation },
    spec: { backoffLimit: 0, template: { spec: { serviceAccountName: sa, restartPolicy: 'Never', containers: [{ name: 'validator', image }], ...extra } } },
  });
  allowed(await create(VALIDATE, validator(tag)), 'a validator at its pinned tag');
  refused(await create(VALIDATE, validator('ghcr.io/nvidia/aicr-validators/deployment:latest')), /is not pinned by the configuration.*aicr\.validatorImages/, 'a validator image nobody pinned');
  refused(await create(VALIDATE, validator(tag, 'aicr-validate')), /run as ServiceAccount aicr-validator, not aicr-validate/, 'a Job as aicr-validate itself');
  refused(await create(VALIDATE, validator(tag, 'aicr-validator', { hostNetwork: true })), /use no host namespaces/, 'a validator on the host network');
});

test('SEC-2 no step writes the configuration or the forwarder\'s checkpoints, and the resolve step reads no Secret but the registry\'s', async () => {
  const patch = JSON.stringify({ data: { [CONFIGURATION.key]: 'aicr: {versions: {v0.11.1: docker.io/library/busybox:latest}}' } });
  for (const who of [RESOLVE, SNAPSHOT, DRIFT, ROLLOUT]) {
    const o = await kubectlAs(who, ['patch', 'configmap', CONFIGURATION.name, '-n', CONFIGURATION.namespace, '--dry-run=server', '--type=merge', '-p', patch]);
    refused(o, /is the chart's: change it through the chart's values|forbidden/i, `${who.user} rewriting ${CONFIGURATION.name}`);
  }
  refused(await kubectlAs(SNAPSHOT, ['delete', 'configmap', CONFIGURATION.name, '-n', CONFIGURATION.namespace, '--dry-run=server']), /is the chart's: change it through the chart's values/, 'the snapshot step deleting the configuration');
  const recreated = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CONFIGURATION.name, namespace: CONFIGURATION.namespace }, data: { [CONFIGURATION.key]: '{}' } };
  refused(await create(SNAPSHOT, recreated), /is the chart's|already exists/, 'the snapshot step creating the configuration');
  const checkpoint = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${FORWARDER_CHECKPOINT.name}-forged`, namespace: FORWARDER_CHECKPOINT.namespace }, data: { [FORWARDER_CHECKPOINT.key]: '1' } };
  refused(await create(RESOLVE, checkpoint), /are the forwarder's checkpoints; only the forwarder/, 'a step writing a forwarder checkpoint');
  allowed(await create(FORWARDER, checkpoint), 'the forwarder writing its checkpoint');
  allowed(await kubectlAs(RESOLVE, ['get', 'secret', REGISTRY_SECRET, '-n', NAMESPACES.system]), 'the resolve step reading the registry Secret the configuration names');
  await kubectl('create', 'secret', 'generic', 'sec-someone-elses', '-n', NAMESPACES.system, '--from-literal=password=hunter2').catch(() => undefined);
  try {
    for (const ns of [NAMESPACES.system, NAMESPACES.jobs, NAMESPACES.validation]) refused(await kubectlAs(RESOLVE, ['get', 'secrets', '-n', ns]), /forbidden/i, `the resolve step listing Secrets in ${ns}`);
    refused(await kubectlAs(RESOLVE, ['get', 'secret', 'sec-someone-elses', '-n', NAMESPACES.system]), /forbidden/i, 'the resolve step reading another Secret in aicr-system');
  } finally {
    await kubectl('delete', 'secret', 'sec-someone-elses', '-n', NAMESPACES.system, '--ignore-not-found');
  }
});

function application(name: string, opts: { uid?: string; project?: string; managed?: boolean; finalizer?: boolean; deleteRollout?: string } = {}): Record<string, unknown> {
  const annotations: Record<string, string> = {};
  if (opts.uid !== '') annotations[ANNOTATION.runtimeUID] = opts.uid ?? runtimeUID;
  if (opts.deleteRollout) annotations[ANNOTATION.deleteRollout] = opts.deleteRollout;
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name,
      namespace: NAMESPACES.argocd,
      annotations,
      ...(opts.managed === false ? {} : { labels: { [LABEL.managedBy]: MANAGED_BY_VALUE } }),
      ...(opts.finalizer ? { finalizers: [ARGOCD.resourcesFinalizer] } : {}),
    },
    spec: {
      project: opts.project ?? ARGOCD.project,
      source: { repoURL: `${testEnv().TESTENV_REGISTRY}/aicr`, chart: 'sec-chart', targetRevision: '1.0.0' },
      destination: { server: 'https://kubernetes.default.svc', namespace: 'sec-attack' },
    },
  };
}

test("SEC-3 the rollout and drift-check identities write only their runtime's own Applications, in the configured AppProject", async () => {
  for (const who of [ROLLOUT, DRIFT]) {
    allowed(await create(who, application('sec-owned')), `${who.user} writing an owned Application in project ${ARGOCD.project}`);
    refused(await create(who, application('sec-default', { project: 'default' })), /names AppProject default, not aicr.*only into the configured AppProject/, `${who.user} writing into project default`);
    refused(await create(who, application('sec-other', { uid: '00000000-0000-4000-8000-000000000000' })), /must carry ClusterRuntime cluster's UID/, `${who.user} writing another runtime's Application`);
    refused(await create(who, application('sec-unowned', { uid: '' })), /is not one the control plane wrote|must carry ClusterRuntime cluster's UID|belongs to no runtime of this control plane/, `${who.user} writing an Application without an owner`);
    refused(await create(who, application('sec-unlabelled', { managed: false })), /(is not one the control plane wrote|must carry ClusterRuntime cluster's UID).*managed-by/, `${who.user} writing an Application without the managed-by label`);
  }
  refused(await create(ROLLOUT, application('sec-finalized', { finalizer: true })), /resources finalizer/, 'the finalizer without delete-rollout');
  refused(await create(ROLLOUT, application('sec-finalized', { finalizer: true, deleteRollout: 'anything' })), /naming a rollout/, 'the finalizer with a delete-rollout naming no rollout');
  for (const rollout of ['aicr-rollout-0123456789abcdef-tpe000', 'aicr-removal-01234567-tpe000']) {
    allowed(await create(ROLLOUT, application('sec-finalized', { finalizer: true, deleteRollout: rollout })), `the finalizer beside delete-rollout ${rollout}, as a Remove step writes it`);
  }
});

test("SEC-3 the control plane cannot change or delete a person's Application, an app-of-apps with the resources finalizer included", async () => {
  const person = application('sec-app-of-apps', { uid: '', managed: false, finalizer: true, project: 'default' });
  await kubectl('delete', 'application', 'sec-app-of-apps', 'sec-persons-app', 'sec-other-runtimes', '-n', NAMESPACES.argocd, '--ignore-not-found', '--wait=false');
  const created = await create({ user: 'admin', groups: ['system:masters'] }, person, false);
  allowed(created, "a person's app-of-apps");
  try {
    refused(await kubectlAs(ROLLOUT, ['delete', 'application', 'sec-app-of-apps', '-n', NAMESPACES.argocd, '--dry-run=server']), /is not one the control plane wrote|must carry ClusterRuntime cluster's UID|belongs to no runtime of this control plane/, 'the rollout step deleting it');
    const own = JSON.stringify({ metadata: { annotations: { [ANNOTATION.runtimeUID]: runtimeUID }, labels: { [LABEL.managedBy]: MANAGED_BY_VALUE } } });
    const plain = application('sec-persons-app', { uid: '', managed: false, project: 'default' });
    allowed(await create({ user: 'admin', groups: ['system:masters'] }, plain, false), "a person's plain Application");
    for (const who of [ROLLOUT, DRIFT]) {
      // The finalizer policy answers first for the app-of-apps; the ownership policy for the plain one.
      refused(await kubectlAs(who, ['patch', 'application', 'sec-app-of-apps', '-n', NAMESPACES.argocd, '--dry-run=server', '--type=merge', '-p', own]), /resources finalizer|is not one the control plane wrote|belongs to no runtime of this control plane|cannot get resource/, `${who.user} taking the app-of-apps over`);
      // A server-side apply, as the steps write: a PATCH without a read first.
      const takeover = application('sec-persons-app', { project: 'default' });
      refused(await kubectlAs(who, ['apply', '--server-side', '--force-conflicts', '--dry-run=server', '-f', '-'], takeover), /is not one the control plane wrote|must carry ClusterRuntime cluster's UID|belongs to no runtime of this control plane/, `${who.user} taking a person's Application over without an adoption`);
    }
    refused(await kubectlAs(ROLLOUT, ['delete', 'application', 'sec-persons-app', '-n', NAMESPACES.argocd, '--dry-run=server']), /is not one the control plane wrote|must carry ClusterRuntime cluster's UID|belongs to no runtime of this control plane/, "the rollout step deleting a person's Application");
    const foreign = application('sec-other-runtimes', { uid: '00000000-0000-4000-8000-000000000000' });
    allowed(await create({ user: 'admin', groups: ['system:masters'] }, foreign, false), "another runtime's Application");
    refused(await kubectlAs(ROLLOUT, ['delete', 'application', 'sec-other-runtimes', '-n', NAMESPACES.argocd, '--dry-run=server']), /belongs to no runtime of this control plane/, "the rollout step deleting another runtime's Application");
  } finally {
    await kubectl('delete', 'application', 'sec-persons-app', 'sec-other-runtimes', '-n', NAMESPACES.argocd, '--ignore-not-found');
    await kubectl('patch', 'application', 'sec-app-of-apps', '-n', NAMESPACES.argocd, '--type=merge', '-p', '{"metadata":{"finalizers":null}}').catch(() => undefined);
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
    metadata: { name, labels: { [LABEL.schemaVersion]: '1' }, ownerReferences: [{ apiVersion: GROUP_VERSION, kind: KINDS.clusterRuntime.kind, name: RUNTIME_NAME, uid: runtimeUID, controller: true }] },
    spec: { runtimeUID, type: 'Upgrade', toPlan: 'aicr-plan-0000000000000000', steps: [] },
  };
  allowed(await create(ROLLOUT, rollout, false), 'the rollout step creating a rollout');
  const now = new Date().toISOString();
  const alice: Identity = { user: 'alice', groups: ['system:authenticated'] };
  const bob: Identity = { user: 'bob', groups: ['system:authenticated'] };
  const write = (who: Identity, spec: Record<string, unknown>): Promise<Outcome> => kubectlAs(who, ['patch', KINDS.runtimeRollout.plural, name, '--type=merge', '--dry-run=server', '-p', JSON.stringify({ spec })]);
  refused(await write(alice, { approval: { approvedBy: 'carol', approvedAt: now } }), /approvedBy/, 'an approver approving as someone else');
  refused(await write(bob, { approval: { approvedBy: 'bob', approvedAt: now } }), /approve/, 'someone RBAC does not let approve, as themselves');
  refused(await write(alice, { revocation: { revokedBy: 'carol', revokedAt: now } }), /revokedBy|revok/, 'revoking as someone else');
  refused(await write(alice, { retry: { requestedBy: 'carol', requestedAt: now } }), /requestedBy|retry/, 'asking a retry as someone else');
  refused(await write(DRIFT, { approval: { approvedBy: DRIFT.user, approvedAt: now } }), /forbidden/i, 'the drift check approving (RBAC)');
  allowed(await write(alice, { approval: { approvedBy: 'alice', approvedAt: now } }), 'an approver approving as themselves');
  await kubectl('delete', KINDS.runtimeRollout.plural, name, '--ignore-not-found');
});
