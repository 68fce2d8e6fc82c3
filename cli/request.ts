// Writing a person's request on a rollout (a revocation, a retry) and waiting for the control
// plane's answer. The write carries the resourceVersion it was read at, so the API server refuses
// it with a conflict if the rollout changed meanwhile (the control plane ended it, someone else
// asked first) and it is checked again against the fresh rollout rather than clobbering it.
import { KINDS } from '../shared/api/constants.ts';
import type { RolloutObject } from '../shared/rollout/rules/rolloutObject.ts';
import { Refused, readRollout, refusalText } from './approve.ts';
import { type Kubectl, KubectlError, runKubectl } from './kubectl.ts';

export interface Request {
  /** The spec field, for messages: revocation, retry. */
  readonly what: string;
  /** What a refused person is not allowed to do, as RBAC's refusal says it. */
  readonly doing: string;
  /** Why the request cannot be made on this rollout, before trying (admission says the same, later and terser). */
  readonly problem: (r: RolloutObject) => string | undefined;
  /** The spec patch that records it, or how to make it from the rollout as read (when it extends a list). */
  readonly spec: Record<string, unknown> | ((r: RolloutObject) => Record<string, unknown>);
}

async function write(k: Kubectl, r: RolloutObject, req: Request, by: string): Promise<'written' | 'conflict'> {
  const spec = typeof req.spec === 'function' ? req.spec(r) : req.spec;
  const patch = { metadata: { resourceVersion: r.metadata.resourceVersion }, spec };
  try {
    await runKubectl(k, [
      'patch',
      KINDS.runtimeRollout.plural,
      r.metadata.name,
      '--type',
      'merge',
      '-p',
      JSON.stringify(patch),
    ]);
    return 'written';
  } catch (err) {
    if (!(err instanceof KubectlError)) throw err;
    if (/\(Conflict\)|the object has been modified/i.test(err.stderr)) return 'conflict';
    throw new Refused(`${req.what} refused: ${refusalText(err, by, req.doing)}`);
  }
}

/** Reads, checks and writes until the write lands on the rollout as read; returns the rollout it was written on. */
export async function recordRequest(k: Kubectl, name: string, req: Request, by: string): Promise<RolloutObject> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const r = await readRollout(k, name);
    const problem = req.problem(r);
    if (problem) throw new Refused(`${req.what} refused: ${problem}`);
    if ((await write(k, r, req, by)) === 'written') return r;
  }
  throw new Refused(`rollout ${name} kept changing while the ${req.what} was written; run the command again`);
}

/** Polls until `done` answers, or throws Refused naming what is still awaited and, if given, where to look next. */
export async function waitUntil<T>(
  timeoutMs: number,
  awaited: string,
  done: () => Promise<T | undefined>,
  next?: string,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const answer = await done();
    if (answer !== undefined) return answer;
    if (Date.now() > until) throw new Refused(`${awaited} within ${timeoutMs / 1000}s${next ? `; ${next}` : ''}`);
    await new Promise((wake) => setTimeout(wake, 500));
  }
}
