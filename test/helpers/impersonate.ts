// kubectl as one of the control plane's identities (or anyone), the way its EKS access entry
// maps it: a user and its groups, impersonated against the real API server. It never throws,
// so a test reads the API server's answer, refusal or not.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { IDENTITY_GROUP, IDENTITY_USER } from '../../shared/api/constants.ts';
import { testEnv } from '../../harness/env.ts';

export type Identity = { readonly user: string; readonly groups: readonly string[] };

export interface Outcome {
  readonly ok: boolean;
  readonly stderr: string;
}

/** The identity of step `name` (aicr-step-<name> in group aicr:step:<name>). */
export const stepIdentity = (name: string): Identity => ({
  user: IDENTITY_USER.step(name),
  groups: [IDENTITY_GROUP.step(name)],
});

/** kubectl as `who`, with `body` on stdin. */
export function kubectlAs(who: Identity, args: readonly string[], body?: Record<string, unknown>): Promise<Outcome> {
  const flags = [`--as=${who.user}`, ...who.groups.map((g) => `--as-group=${g}`)];
  return new Promise((resolve) => {
    const child = execFile(
      'kubectl',
      ['--kubeconfig', testEnv().KUBECONFIG, ...flags, ...args],
      (err, _stdout, stderr) => resolve({ ok: !err, stderr }),
    );
    child.stdin?.end(body ? JSON.stringify(body) : '');
  });
}

/** A server-side dry run (or a real create) of `body` as `who`. */
export const createAs = (who: Identity, body: Record<string, unknown>, dryRun = true): Promise<Outcome> =>
  kubectlAs(who, ['create', ...(dryRun ? ['--dry-run=server'] : []), '-f', '-'], body);

export function refused(o: Outcome, why: RegExp, what: string): void {
  assert.equal(o.ok, false, `${what} was refused`);
  assert.match(o.stderr, why, what);
}

export function allowed(o: Outcome, what: string): void {
  assert.equal(o.ok, true, `${what} was allowed: ${o.stderr}`);
}
