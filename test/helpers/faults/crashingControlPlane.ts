// FAULT HARNESS, test only (FLT-1): local mode's control plane in a process of its own that
// kills itself with SIGKILL right after its Nth write request to the API server has been
// answered, so the crash falls between two API requests exactly where the test chose. Every
// write counts, whoever sends it (a step, the forwarder, an Event): each is a boundary.
// It also handles a share of messages twice, one right after the other, as SQS's at-least-once
// delivery may (a duplicate must only re-read).
// Usage: node --import tsx crashingControlPlane.ts; AICR_FAULT_CRASH_AFTER_WRITE=N (0: never),
// AICR_FAULT_STEPS=rollout,drift-check (the step table's rows to run), AICR_FAULT_DUPLICATE=0.3
// (the share of messages handled twice), AICR_FAULT_SEED (the duplicates' draws).
import { writeSync } from 'node:fs';
import type { Kind } from '../../../shared/kube/kinds.ts';
import type { KubePort } from '../../../shared/kube/port.ts';
import { startLocalControlPlane } from '../../../shared/local/controlPlane.ts';
import { createLogger } from '../../../shared/observability/log.ts';
import { STEP_TABLE } from '../../../shared/steps/table.ts';
import { forwarderKube, stepKube } from '../controlPlane.ts';
import { SCALED_TIMINGS } from '../resolved.ts';
import { CRASH_LINE, DUPLICATE_LINE } from './lines.ts';


const crashAt = Number(process.env['AICR_FAULT_CRASH_AFTER_WRITE'] ?? '0');
const steps = (process.env['AICR_FAULT_STEPS'] ?? 'rollout').split(',');
const duplicateShare = Number(process.env['AICR_FAULT_DUPLICATE'] ?? '0');
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
  const after = <T>(what: string, call: Promise<T>): Promise<T> => call.finally(() => crashAfter(what));
  const named = (kind: Kind<unknown>, name: string): string => `${kind.plural}/${name}`;
  // Every method named: the port is a class instance, whose methods a spread would not copy.
  return {
    get: (kind, name, ns) => port.get(kind, name, ns),
    list: (kind, sel) => port.list(kind, sel),
    watch: (kind, opts) => port.watch(kind, opts),
    create: (kind, obj) => after(`create ${named(kind, obj.metadata.name)}`, port.create(kind, obj)),
    update: (kind, obj) => after(`update ${named(kind, obj.metadata.name)}`, port.update(kind, obj)),
    apply: (kind, obj, opts) => after(`apply ${named(kind, obj.metadata.name)}`, port.apply(kind, obj, opts)),
    applyStatus: (kind, obj, opts) => after(`apply status ${named(kind, obj.metadata.name)}`, port.applyStatus(kind, obj, opts)),
    patch: (kind, name, ns, patch) => after(`patch ${named(kind, name)}`, port.patch(kind, name, ns, patch)),
    delete: (kind, name, ns, opts) => after(`delete ${named(kind, name)}`, port.delete(kind, name, ns, opts)),
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
