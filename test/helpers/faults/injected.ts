// FAULT HARNESS, test only (FLT-1): the faults both harness processes inject, read from the
// environment the test sets (processes.ts). A process of the control plane kills itself with
// SIGKILL right after its Nth write request to the API server has been answered, so the crash
// falls between two API requests exactly where the test chose; every write counts, whoever sends
// it (a step, the forwarder, an Event). It answers a share of requests as a busy API server
// would, without sending them: writes with 409 Conflict (a lost race), any request with 429 Too
// Many Requests (retry after 1 s), through the client's own mapping of those answers. It ends a
// share of watches with 410 Gone a moment after they open, as an API server whose watch history
// moved on does. And it handles a share of messages twice, as at-least-once delivery may, and
// holds a share of sent messages back so that messages sent after them are handled first.
// Each of these must only make the control plane read again.
// AICR_FAULT_CRASH_AFTER_WRITE=N (0: never), AICR_FAULT_DUPLICATE, AICR_FAULT_CONFLICTS,
// AICR_FAULT_THROTTLES, AICR_FAULT_GONE and AICR_FAULT_HOLD_BACK (shares), AICR_FAULT_SEED.
import { writeSync } from 'node:fs';
import type { Kind } from '../../../shared/kube/kinds.ts';
import { fromKubeError } from '../../../shared/kube/errors.ts';
import type { KubePort, WatchHandle, WatchOptions } from '../../../shared/kube/port.ts';
import {
  CONFLICT_LINE,
  CRASH_LINE,
  DELAY_LINE,
  DUPLICATE_LINE,
  GONE_LINE,
  SEND_LINE,
  THROTTLE_LINE,
  WRITE_LINE,
} from './lines.ts';

const crashAt = Number(process.env['AICR_FAULT_CRASH_AFTER_WRITE'] ?? '0');
const duplicateShare = Number(process.env['AICR_FAULT_DUPLICATE'] ?? '0');
const conflictShare = Number(process.env['AICR_FAULT_CONFLICTS'] ?? '0');
const throttleShare = Number(process.env['AICR_FAULT_THROTTLES'] ?? '0');
const goneShare = Number(process.env['AICR_FAULT_GONE'] ?? '0');
const holdBackShare = Number(process.env['AICR_FAULT_HOLD_BACK'] ?? '0');
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
let expired = 0;
let heldBack = 0;

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

/** The watch, ended for a share of them with 410 Gone (through the client's mapping) up to 3 s after it opened. */
async function expiring<T>(port: KubePort, kind: Kind<T>, opts: WatchOptions<T>): Promise<WatchHandle> {
  const inner = await port.watch(kind, opts);
  if (!(goneShare > 0 && next() < goneShare)) return inner;
  const afterMs = Math.floor(next() * 3_000);
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      writeSync(1, `${GONE_LINE} ${++expired}: ${kind.plural} after ${afterMs} ms\n`);
      inner.stop();
      reject(fromKubeError({ code: 410, body: { reason: 'Expired' } }));
    }, afterMs);
    inner.done.then(
      () => (clearTimeout(timer), resolve()),
      (err: unknown) => (clearTimeout(timer), reject(err)),
    );
  });
  return { done, stop: () => inner.stop() };
}

function crashAfter(what: string): void {
  writes += 1;
  writeSync(1, `${WRITE_LINE} ${writes}: ${what}\n`);
  if (crashAt > 0 && writes >= crashAt) {
    writeSync(1, `${CRASH_LINE} ${writes}: ${what}\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}

function sent<T>(what: string, call: () => Promise<T>): Promise<T> {
  writeSync(1, `${SEND_LINE}: ${what}\n`);
  return call();
}

/** The port with every write counted, and the crash after the chosen one. */
export function crashing(port: KubePort): KubePort {
  // Answered either way: a refused write (a 409, say) is a boundary too.
  const after = <T>(what: string, call: () => Promise<T>): Promise<T> =>
    busy(what, true) ?? sent(what, call).finally(() => crashAfter(what));
  const read = <T>(what: string, call: () => Promise<T>): Promise<T> => busy(what, false) ?? call();
  const named = (kind: Kind<unknown>, name: string): string => `${kind.plural}/${name}`;
  // Every method named: the port is a class instance, whose methods a spread would not copy.
  // Watches get no 409 or 429: a watch's own fault is 410 Gone, which makes the forwarder relist.
  return {
    get: (kind, name, ns) => read(`get ${named(kind, name)}`, () => port.get(kind, name, ns)),
    list: (kind, sel) => read(`list ${kind.plural}`, () => port.list(kind, sel)),
    watch: (kind, opts) => expiring(port, kind, opts),
    create: (kind, obj) => after(`create ${named(kind, obj.metadata.name)}`, () => port.create(kind, obj)),
    update: (kind, obj) => after(`update ${named(kind, obj.metadata.name)}`, () => port.update(kind, obj)),
    apply: (kind, obj, opts) => after(`apply ${named(kind, obj.metadata.name)}`, () => port.apply(kind, obj, opts)),
    applyStatus: (kind, obj, opts) =>
      after(`apply status ${named(kind, obj.metadata.name)}`, () => port.applyStatus(kind, obj, opts)),
    patch: (kind, name, ns, patch) => after(`patch ${named(kind, name)}`, () => port.patch(kind, name, ns, patch)),
    delete: (kind, name, ns, opts) => after(`delete ${named(kind, name)}`, () => port.delete(kind, name, ns, opts)),
  };
}

/** Whether to handle the message just handled once more. */
export function handleAgain(): boolean {
  const again = next() < duplicateShare;
  if (again) writeSync(1, `${DUPLICATE_LINE} ${++duplicated}\n`);
  return again;
}

/** How long to hold a sent message back: 0 for most, 0.2 to 3 s for a share. */
export function holdBackMs(): number {
  if (!(holdBackShare > 0 && next() < holdBackShare)) return 0;
  const ms = 200 + Math.floor(next() * 2_800);
  writeSync(1, `${DELAY_LINE} ${++heldBack}: ${ms} ms\n`);
  return ms;
}
