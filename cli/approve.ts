// `kubectl aicr approve NAME`: records the approval as the requesting user (the name the API
// server gives them, never one built from the kubeconfig), then waits for the control plane to
// accept or refuse it. Exit 0 when accepted; otherwise the reason, and a non-zero exit.
import { APPROVAL, KINDS } from '../shared/api/constants.ts';
import { parseRollout, type RolloutObject } from '../shared/rollout/rules/rolloutObject.ts';
import { verdictOnRecorded } from '../shared/rollout/rules/approval.ts';
import { kubeTime } from '../shared/status/conditions.ts';
import { type Kubectl, KubectlError, getJson, runKubectl, whoami } from './kubectl.ts';
import { NotFound } from './describe.ts';

export class Refused extends Error {}

export async function readRollout(k: Kubectl, name: string): Promise<RolloutObject> {
  const obj = await getJson(k, KINDS.runtimeRollout.plural, name);
  if (!obj)
    throw new NotFound(`rollout ${name} does not exist; list them with kubectl get ${KINDS.runtimeRollout.plural}`);
  const r = parseRollout(obj);
  if (!r) throw new Error(`rollout ${name} does not read as a RuntimeRollout`);
  return r;
}

/** Why an approval cannot be recorded, before trying (admission says the same, later and terser). */
function precheck(r: RolloutObject, now: Date): string | undefined {
  const name = r.metadata.name;
  if (r.status?.outcome) return `rollout ${name} has ended ${r.status.outcome}; there is nothing to approve`;
  // An approval the control plane refused may be replaced by a new one.
  if (r.spec.approval && verdictOnRecorded(r)?.state !== 'Refused')
    return `rollout ${name} is already approved by ${r.spec.approval.approvedBy} at ${r.spec.approval.approvedAt}`;
  if (r.spec.deadline && now.getTime() > Date.parse(r.spec.deadline))
    return `rollout ${name} expired at ${r.spec.deadline}; it can no longer be approved`;
  return undefined;
}

/** The API server's refusal as a person reads it: the admission policy's message, or RBAC's. */
export function refusalText(err: KubectlError, user: string, doing = 'approve rollouts'): string {
  const denied = /denied request: (.*)$/m.exec(err.stderr)?.[1];
  if (denied) return denied.trim();
  if (/forbidden/i.test(err.stderr))
    return `${user} is not allowed to ${doing} (${err.stderr.trim()}); ask for ClusterRole ${APPROVAL.approverRole}`;
  return err.stderr.trim();
}

async function record(k: Kubectl, name: string, approval: { approvedBy: string; approvedAt: string }): Promise<void> {
  try {
    await runKubectl(k, [
      'patch',
      KINDS.runtimeRollout.plural,
      name,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { approval } }),
    ]);
  } catch (err) {
    if (err instanceof KubectlError) throw new Refused(`approval refused: ${refusalText(err, approval.approvedBy)}`);
    throw err;
  }
}

async function verdict(k: Kubectl, name: string, approvedAt: string, timeoutMs: number): Promise<RolloutObject> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await readRollout(k, name);
    if (r.status?.approval?.approvedAt === approvedAt) return r;
    if (Date.now() > until)
      throw new Refused(
        `no verdict on the approval within ${timeoutMs / 1000}s; kubectl aicr describe ${name} shows it once ` +
          'the control plane answers',
      );
    await new Promise((done) => setTimeout(done, 500));
  }
}

/** Approves and waits; returns the rollout with the accepted verdict, or throws Refused. */
export async function approve(k: Kubectl, name: string, timeoutMs: number): Promise<RolloutObject> {
  const before = await readRollout(k, name);
  const early = precheck(before, new Date());
  if (early) throw new Refused(`approval refused: ${early}`);
  const approval = { approvedBy: await whoami(k), approvedAt: kubeTime(new Date()) };
  await record(k, name, approval);
  const after = await verdict(k, name, approval.approvedAt, timeoutMs);
  const given = after.status?.approval;
  if (given?.state !== 'Accepted') throw new Refused(given?.message ?? 'approval refused');
  return after;
}
