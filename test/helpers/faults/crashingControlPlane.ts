// FAULT HARNESS, test only (FLT-1): local mode's control plane in a process of its own that
// kills itself with SIGKILL right after its Nth write request to the API server has been
// answered, so the crash falls between two API requests exactly where the test chose. Every
// write counts, whoever sends it (a step, the forwarder, an Event): each is a boundary.
// It also handles a share of messages twice, one right after the other, as SQS's at-least-once
// delivery may (a duplicate must only re-read).
// And it answers a share of requests as a busy API server would, without sending them: writes
// with 409 Conflict (a lost race), any request with 429 Too Many Requests (retry after 1 s),
// through the client's own mapping of those answers (fromKubeError).
// Usage: node --import tsx crashingControlPlane.ts; AICR_FAULT_CRASH_AFTER_WRITE=N (0: never),
// AICR_FAULT_STEPS=rollout,drift-check (the step table's rows to run), AICR_FAULT_DUPLICATE=0.3
// (the share of messages handled twice), AICR_FAULT_CONFLICTS and AICR_FAULT_THROTTLES (the
// shares answered 409 and 429), AICR_FAULT_SEED (the draws).
import { writeSync } from 'node:fs';
import type { Kind } from '../../../shared/kube/kinds.ts';
import { fromKubeError } from '../../../shared/kube/errors.ts';
import type { KubePort } from '../../../shared/kube/port.ts';
import { startLocalControlPlane } from '../../../shared/local/controlPlane.ts';
import { createLogger } from '../../../shared/observability/log.ts';
import { STEP_TABLE } from '../../../shared/steps/table.ts';
import { forwarderKube, stepKube } from '../controlPlane.ts';
import { SCALED_TIMINGS } from '../resolved.ts';
import { CONFLICT_LINE, CRASH_LINE, DUPLICATE_LINE, THROTTLE_LINE } from './lines.ts';

const crashAt = Number(process.env['AICR_FAULT_CRASH_AFTER_WRITE'] ?? '0');
const steps = (process.env['AICR_FAULT_STEPS'] ?? 'rollout').split(',');
const duplicateShare = Number(process.env['AICR_FAULT_DUPLICATE'] ?? '0');
const conflictShare = Number(process.env['AICR_FAULT_CONFLICTS'] ?? '0');
const throttleShare = Number(process.env['AICR_FAULT_THROTTLES'] ?? '0');
let draw = Number(process.env['AICR_FAULT_SEED'] ?? '1') >>> 0 || 1;
/** A seeded draw in [0, 1) (xorshift32), so a failing run's duplicates replay with its seed. */
function next(): number {
  draw ^= draw << 13;
  draw ^= draw >>> 17;
  draw ^= draw << 5;
  return (draw >>> 0) / 4294967296;
}
let duplicated = 0;
let writes = 0;
let refused = 0;

/** The API server's answer `code` to `what`, as the client would have it, instead of sending the request. */
function answered(code: 409 | 429, what: string): Promise<never> {
  writeSync(1, `${code === 409 ? CONFLICT_LINE : THROTTLE_LINE} ${++refused}: ${what}\n`);
  const body = code === 409 ? { reason: 'Conflict' } : { reason: 'TooManyRequests', details: { retryAfterSeconds: 1 } };
  return Promise.reject(fromKubeError({ code, body }));
}

/** A request the busy API server of this run answers itself, or undefined to send it. */
function busy(what: string, write: boolean): Promise<never> | undefined {
  if (throttleShare > 0 && next() < throttleShare) return answered(429, what);
  if (write && conflictShare > 0 && next() < conflictShare) return answered(409, what);
  return undefined;
}

function crashAfter(what: string): void {
  writes += 1;
  if (crashAt > 0 && writes >= crashAt) {
    writeSync(1, `${CRASH_LINE} ${writes}: ${what}\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}

/** The port with every write counted, and the crash after the chosen one. */
function crashing(port: KubePort): KubePort {
  // Answered either way: a refused write (a 409, say) is a boundary too.
  const after = <T>(what: string, call: () => Promise<T>): Promise<T> => busy(what, true) ?? call().finally(() => crashAfter(what));
  const read = <T>(what: string, call: () => Promise<T>): Promise<T> => busy(what, false) ?? call();
  const named = (kind: Kind<unknown>, name: string): string => `${kind.plural}/${name}`;
  // Every method named: the port is a class instance, whose methods a spread would not copy.
  // Watches are left alone: the forwarder's relists after a 429 are another fault, not this one.
  return {
    get: (kind, name, ns) => read(`get ${named(kind, name)}`, () => port.get(kind, name, ns)),
    list: (kind, sel) => read(`list ${kind.plural}`, () => port.list(kind, sel)),
    watch: (kind, opts) => port.watch(kind, opts),
    create: (kind, obj) => after(`create ${named(kind, obj.metadata.name)}`, () => port.create(kind, obj)),
    update: (kind, obj) => after(`update ${named(kind, obj.metadata.name)}`, () => port.update(kind, obj)),
    apply: (kind, obj, opts) => after(`apply ${named(kind, obj.metadata.name)}`, () => port.apply(kind, obj, opts)),
    applyStatus: (kind, obj, opts) => after(`apply status ${named(kind, obj.metadata.name)}`, () => port.applyStatus(kind, obj, opts)),
    patch: (kind, name, ns, patch) => after(`patch ${named(kind, name)}`, () => port.patch(kind, name, ns, patch)),
    delete: (kind, name, ns, opts) => after(`delete ${named(kind, name)}`, () => port.delete(kind, name, ns, opts)),
  };
}

const cp = startLocalControlPlane({
  kube: crashing(forwarderKube()),
  kubeFor: (step) => crashing(stepKube(step)),
  log: createLogger({ level: 'warn' }),
  timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 },
  table: STEP_TABLE.filter((r) => steps.includes(r.name)),
  queue: { redeliveryDelayMs: 50 },
  watchTimeoutSeconds: 30,
  handleAgain: () => {
    const again = next() < duplicateShare;
    if (again) writeSync(1, `${DUPLICATE_LINE} ${++duplicated}\n`);
    return again;
  },
});
process.on('SIGTERM', () => cp.stop());
await cp.running;
