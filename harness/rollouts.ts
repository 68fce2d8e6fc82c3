// Helpers for the rollout tests: waiting on Released, reading rollouts as the rollout step,
// writing plans as resolution would, the named test users, and the audit check of COND-3.
import assert from 'node:assert/strict';
import { APPROVAL, LABEL, NAMESPACES } from '../shared/api/constants.ts';
import { KIND } from '../shared/kube/kinds.ts';
import { planDigest, planName } from '../shared/plans/digest.ts';
import type { Plan } from '../shared/plans/plan.ts';
import type { Release } from '../shared/plans/release.ts';
import { planConfigMap } from '../shared/plans/store.ts';
import { type RolloutObject, byCreation, parseRollout } from '../shared/rollout/rules/rolloutObject.ts';
import { type AuditEvent, auditSince, settleAudit } from './audit.ts';
import { stepKube } from './controlPlane.ts';
import { CONTROL_PLANE_USER } from './env.ts';
import { applyConfiguration, ensureArgoCdRepoCreds } from './configuration.ts';
import { kubectlApply } from './kubectlApply.ts';
import { kubectlAicr } from './plugin.ts';
import { storePlan, target } from './rolloutStage.ts';
import { condition, createRuntime, deleteRuntime, ensureCrds, getRuntime, kubectl, waitFor } from './runtime.ts';

const asResolve = stepKube('resolve');
const asRollout = stepKube('rollout');

export async function released(
  what: string,
  ok: (reason: string, message: string) => boolean,
  timeoutMs = 60_000,
): Promise<{ reason: string; message: string }> {
  let last: unknown;
  try {
    return await waitFor(
      what,
      async () => {
        const c = condition(await getRuntime(), 'Released');
        last = c;
        return c && ok(c.reason, c.message) ? c : undefined;
      },
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; Released was ${JSON.stringify(last)}`, { cause: err });
  }
}

/**
 * Runs `fn` with the runtime's actionTimeout short enough for a held step to fail soon, then puts
 * back `usual`. Tests run everything else at the longer timeout: on a loaded machine (two test
 * files at a time) a release's Pods can take longer than 10 s to become ready.
 */
export async function failingSoon(fn: () => Promise<void>, usual = '60s'): Promise<void> {
  await setActionTimeout(FAILING_SOON);
  try {
    await fn();
  } finally {
    await setActionTimeout(usual);
  }
}

/** The actionTimeout `failingSoon` gives a step that is meant to fail. */
export const FAILING_SOON = '15s';

/** Sets the runtime's actionTimeout, as a person would with kubectl. */
export function setActionTimeout(value: string): Promise<string> {
  return kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { actionTimeout: value } }),
  );
}

/**
 * Waits for the runtime's Stalled condition to carry `reason`. The summary writer derives it in
 * its own write after the step's, so it can trail the Released condition by a moment.
 */
export async function stalledOn(reason: string, timeoutMs = 20_000): Promise<void> {
  let last: string | undefined;
  try {
    await waitFor(
      `Stalled=True with ${reason}`,
      async () => {
        const c = condition(await getRuntime(), 'Stalled');
        last = `${c?.status ?? 'none'}/${c?.reason ?? 'none'}`;
        return c?.status === 'True' && c.reason === reason ? true : undefined;
      },
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; Stalled was ${last ?? 'never read'}`, { cause: err });
  }
}

/**
 * The runtime's rollouts, oldest first (names sort by target plan, not by time), as the rollout
 * step's own identity reads them.
 */
export async function rolloutsOf(runtimeUID: string): Promise<RolloutObject[]> {
  return (await asRollout.list(KIND.runtimeRollout)).items
    .map(parseRollout)
    .filter((r): r is RolloutObject => r !== undefined && r.spec.runtimeUID === runtimeUID)
    .sort(byCreation);
}

export async function rollout(name: string): Promise<RolloutObject> {
  const r = parseRollout(await asRollout.get(KIND.runtimeRollout, name));
  assert.ok(r, `rollout ${name} exists and fits its schema`);
  return r;
}

/** COND-3: no request of the control plane's identities wrote an Application since the mark. */
export async function assertNoApplicationWrite(since: number): Promise<void> {
  await settleAudit();
  // The test itself writes Applications as its admin, standing in for what Argo CD holds.
  const ours = (e: AuditEvent): boolean =>
    e.user.username === CONTROL_PLANE_USER || (e.impersonatedUser?.username ?? '').startsWith('aicr-');
  const writes = auditSince(since).filter(
    (e) =>
      ours(e) &&
      e.objectRef?.resource === 'applications' &&
      ['create', 'update', 'patch', 'delete', 'deletecollection'].includes(e.verb),
  );
  assert.deepEqual(
    writes.map((e) => `${e.verb} ${e.objectRef?.name ?? ''} by ${e.impersonatedUser?.username ?? e.user.username}`),
    [],
  );
}

/** Writes a plan of other releases, as resolution would have, and returns its name. */
export async function writePlan(
  base: Plan,
  change: (r: Release, i: number) => Release,
): Promise<{ name: string; plan: Plan }> {
  const releases = base.releases.map(change);
  const plan = { ...base, releases, digest: planDigest(releases) };
  const name = planName(plan.digest);
  if (!(await asResolve.get(KIND.configMap, name, NAMESPACES.system)))
    await asResolve.create(KIND.configMap, planConfigMap(plan));
  return { name, plan };
}

export async function select(selection: Record<string, unknown>): Promise<void> {
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', JSON.stringify({ spec: { selection } }));
}

export async function clearApplications(): Promise<void> {
  await kubectl(
    'delete',
    'applications.argoproj.io',
    '-n',
    NAMESPACES.argocd,
    '-l',
    `${LABEL.managedBy}=aicr-operator`,
    '--ignore-not-found',
  );
}

export async function grantUsers(): Promise<void> {
  await kubectl(
    'create',
    'clusterrolebinding',
    'test-approver-alice',
    `--clusterrole=${APPROVAL.approverRole}`,
    '--user=alice',
  ).catch(() => undefined);
  await kubectlApply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'test-rollout-editor' },
    rules: [
      {
        apiGroups: ['operator.aicr.run'],
        resources: ['runtimerollouts', 'clusterruntimes'],
        verbs: ['get', 'list', 'patch'],
      },
    ],
  });
  await kubectl(
    'create',
    'clusterrolebinding',
    'test-rollout-editor-bob',
    '--clusterrole=test-rollout-editor',
    '--user=bob',
  ).catch(() => undefined);
}

/**
 * A clean stage for a rollout test: no runtime, rollouts or owned Applications, the test
 * configuration (or `configuration`), the approvers, and Argo CD's repository Secret for the
 * test registry unless the test writes its own.
 */
export async function clearRolloutStage(
  opts: { readonly configuration?: Record<string, unknown>; readonly repoCreds?: boolean } = {},
): Promise<void> {
  await ensureCrds();
  await deleteRuntime();
  await applyConfiguration(opts.configuration);
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
  await grantUsers();
  if (opts.repoCreds ?? true) await ensureArgoCdRepoCreds();
}

/** The rollout to `plan` once the runtime says it waits for approval. */
export async function awaitingRollout(plan: string): Promise<RolloutObject> {
  const c = await released(
    `AwaitingApproval for ${plan}`,
    (reason, message) => reason === 'AwaitingApproval' && message.includes(plan),
  );
  return rollout(/rollout (aicr-rollout-[0-9a-z-]+)/.exec(c.message)?.[1] ?? '');
}

/** Approves as alice, an approver, with the plugin. */
export async function approve(name: string): Promise<void> {
  const ok = await kubectlAicr(['approve', name], 'alice');
  assert.equal(ok.code, 0, ok.stderr);
}

/**
 * Creates the runtime, settles resolution on a plan of `releases`, approves its rollout and waits
 * until the plan is active.
 */
export async function installedRuntime(
  spec: Record<string, unknown>,
  releases: Release[],
): Promise<{ uid: string; plan: string }> {
  const uid = (await createRuntime(spec)).metadata.uid;
  const { name } = await storePlan(uid, releases);
  await target(name);
  await approve((await awaitingRollout(name)).metadata.name);
  await released(`Released on ${name}`, (reason, message) => reason === 'Released' && message.includes(name));
  return { uid, plan: name };
}

/** After a file: stops its control plane and clears the runtime, its rollouts and the owned Applications. */
export async function stopAndClear(cp: { stop(): void; readonly running: Promise<unknown> }): Promise<void> {
  cp.stop();
  await cp.running;
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
}
