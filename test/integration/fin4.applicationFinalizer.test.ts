// FIN-4 on the real API server: the chart's admission policy lets the control plane's identities
// write an Argo CD Application that carries Argo CD's resources finalizer only together with the
// delete-rollout annotation (an approved Remove step). The rollout step's identity is played by
// impersonation, through the real kubectl (so the refusal's text is the API server's own) and
// through the control plane's own client; people (the test's admin) are not matched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  ANNOTATION,
  APPLICATION_ADMISSION,
  ARGOCD,
  FIELD_MANAGER,
  IDENTITY_GROUP,
  IDENTITY_USER,
  LABEL,
  MANAGED_BY_VALUE,
  NAMESPACES,
} from '../../shared/api/constants.ts';
import { KubeRequestError } from '../../shared/errors.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { finalizerRefusal } from '../../shared/rbac/applicationAdmission.ts';
import { stepKube } from '../../harness/controlPlane.ts';
import { testEnv, uniqueName } from '../../harness/env.ts';
import { deleteRuntime, ensureCrds, kubectl, waitFor } from '../../harness/runtime.ts';
import { runbookOk } from '../helpers/runbook.ts';

const NS = NAMESPACES.argocd;
const AS_ROLLOUT = [
  '--as',
  IDENTITY_USER.step('rollout'),
  '--as-group',
  IDENTITY_GROUP.step('rollout'),
  '--as-group',
  'system:authenticated',
];
const created = new Set<string>();
/** No ClusterRuntime runs here, so the ownership policy has no UID to compare; an owned Application still carries one (SEC-3). */
const RUNTIME_UID = '00000000-0000-4000-8000-00000000f1a4';

interface Run {
  readonly code: number;
  readonly stderr: string;
}

type Extra = { finalizers?: string[]; annotations?: Record<string, string>; labels?: Record<string, string> };

/** An owned Application as the rollout step writes it, with the metadata a test adds. */
function application(name: string, extra: Extra = {}): Record<string, unknown> {
  created.add(name);
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name,
      namespace: NS,
      labels: { [LABEL.managedBy]: MANAGED_BY_VALUE, ...extra.labels },
      annotations: { [ANNOTATION.runtimeUID]: RUNTIME_UID, ...extra.annotations },
      ...(extra.finalizers ? { finalizers: extra.finalizers } : {}),
    },
    spec: {
      project: ARGOCD.project,
      destination: { server: ARGOCD.inClusterServer, namespace: 'ns-fin4-test' },
      source: { repoURL: 'registry.example/aicr', chart: 'demo', targetRevision: '1.0.0' },
    },
  };
}

/** Server-side apply through the real kubectl as the rollout step's identity; never rejects. */
function applyAsRollout(obj: Record<string, unknown>, ...more: string[]): Promise<Run> {
  const args = [
    '--kubeconfig',
    testEnv().KUBECONFIG,
    ...AS_ROLLOUT,
    'apply',
    '--server-side',
    '--field-manager',
    FIELD_MANAGER.rollout,
    ...more,
    '-f',
    '-',
  ];
  return new Promise((resolve) => {
    const child = execFile('kubectl', args, (err, _stdout, stderr) => resolve({ code: err ? 1 : 0, stderr }));
    child.stdin?.end(JSON.stringify(obj));
  });
}

/** Refused by the finalizer policy, with its whole message for this Application. */
function assertFinalizerRefusal(run: Run, name: string): void {
  assert.notEqual(run.code, 0, 'the API server refused the write');
  assert.match(run.stderr, new RegExp(`ValidatingAdmissionPolicy '${APPLICATION_ADMISSION.name}' .*denied request`));
  assert.ok(run.stderr.includes(finalizerRefusal(name)), run.stderr);
}

async function finalizersOf(name: string): Promise<string> {
  return kubectl('get', 'applications.argoproj.io', name, '-n', NS, '-o', 'jsonpath={.metadata.finalizers}');
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await kubectl('create', 'namespace', NS).catch(() => undefined);
  // A policy just installed is enforced a moment later: probe with a dry run until it refuses.
  const probe = application('fin4-probe', { finalizers: [ARGOCD.resourcesFinalizer] });
  created.delete('fin4-probe');
  await waitFor(
    'the application finalizer policy to be enforced',
    async () =>
      (await applyAsRollout(probe, '--dry-run=server')).stderr.includes(APPLICATION_ADMISSION.name) ? true : undefined,
    15_000,
  );
});

after(async () => {
  for (const name of created) {
    await kubectl(
      '-n',
      NS,
      'patch',
      'applications.argoproj.io',
      name,
      '--type',
      'merge',
      '-p',
      '{"metadata":{"finalizers":null}}',
    ).catch(() => undefined);
    await kubectl('delete', 'applications.argoproj.io', name, '-n', NS, '--ignore-not-found', '--wait=false').catch(
      () => undefined,
    );
  }
});

test("FIN-4 the rollout step's identity applying an Application with Argo CD's resources finalizer but without the delete-rollout annotation is refused with the rule and the by-hand fix; nothing is stored", async () => {
  const name = uniqueName('fin4-refused');
  assertFinalizerRefusal(await applyAsRollout(application(name, { finalizers: [ARGOCD.resourcesFinalizer] })), name);
  assert.equal(await kubectl('get', 'applications.argoproj.io', '-n', NS, '--ignore-not-found', name), '');
  // The step's own client gets the same refusal, as a 403.
  const err = await stepKube('rollout')
    .apply(KIND.application, application(name, { finalizers: [ARGOCD.resourcesFinalizer] }) as never, {
      fieldManager: FIELD_MANAGER.rollout,
    })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(err instanceof KubeRequestError, String(err));
  assert.deepEqual([err.status, err.reason], [403, 'Forbidden']);
});

test('FIN-4 with the delete-rollout annotation beside it the rollout step may set the finalizer, and take both off again', async () => {
  const name = uniqueName('fin4-removing');
  const removing = application(name, {
    finalizers: [ARGOCD.resourcesFinalizer],
    annotations: { [ANNOTATION.deleteRollout]: 'aicr-rollout-fin4test-1' },
  });
  const set = await applyAsRollout(removing);
  assert.equal(set.code, 0, set.stderr);
  assert.equal(await finalizersOf(name), `["${ARGOCD.resourcesFinalizer}"]`);
  const cleared = await applyAsRollout(application(name));
  assert.equal(cleared.code, 0, cleared.stderr);
  assert.equal(await finalizersOf(name), '');
});

test("FIN-4 COND-5 an admin may add the finalizer by hand; the rollout step's further writes to that Application are refused until it is removed with the runbook's command", async () => {
  const name = uniqueName('fin4-by-hand');
  const first = await applyAsRollout(application(name));
  assert.equal(first.code, 0, first.stderr);
  await kubectl(
    '-n',
    NS,
    'patch',
    'applications.argoproj.io',
    name,
    '--type',
    'merge',
    '-p',
    JSON.stringify({ metadata: { finalizers: [ARGOCD.resourcesFinalizer] } }),
  );
  assert.equal(await finalizersOf(name), `["${ARGOCD.resourcesFinalizer}"]`);
  assertFinalizerRefusal(await applyAsRollout(application(name, { labels: { 'fin4.test/step': 'two' } })), name);
  assert.equal(
    await kubectl(
      'get',
      'applications.argoproj.io',
      name,
      '-n',
      NS,
      '-o',
      'jsonpath={.metadata.labels.fin4\\.test/step}',
    ),
    '',
  );
  // The fix the message and the runbook give, run as written.
  await runbookOk(`kubectl -n argocd patch application "${name}" --type merge -p '{"metadata":{"finalizers":null}}'`);
  const after = await applyAsRollout(application(name, { labels: { 'fin4.test/step': 'two' } }));
  assert.equal(after.code, 0, after.stderr);
});
