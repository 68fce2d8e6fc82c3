// What woke the rollout step, look by look: the dispatcher's "step run" line names the message's
// cause, and a look run again after losing a write race logs that it was. Read from the control
// plane's own log lines in local mode, so the bench can say where a step's looks come from.
import { createLogger, type Logger } from '../shared/observability/log.ts';
import { METRIC } from '../shared/observability/metrics.ts';

export interface LookCount {
  readonly logger: Logger;
  /** Looks of `step` since the last reset, by cause; `conflict-rerun` counts the looks a message ran again. */
  readonly byCause: () => Record<string, number> & { readonly total: number };
  readonly reset: () => void;
}

export function countLooks(step: string): LookCount {
  let counts: Record<string, number> = {};
  const add = (key: string): void => void (counts[key] = (counts[key] ?? 0) + 1);
  const logger = createLogger({
    level: 'debug',
    sink: (line) => {
      const fields = JSON.parse(line) as Record<string, unknown>;
      if (fields['step'] !== step) return;
      const message = String(fields['message'] ?? '');
      const timing = message === 'step run' || (message === 'metric' && METRIC.reconcileDuration.name in fields);
      if (timing) add(String(fields['cause'] ?? 'unknown'));
      else if (message.startsWith('write conflict')) add('conflict-rerun');
    },
  });
  return { logger, byCause: () => withTotal(counts), reset: () => void (counts = {}) };
}

export function withTotal(
  counts: Readonly<Record<string, number>>,
): Record<string, number> & { readonly total: number } {
  return { ...counts, total: Object.values(counts).reduce((n, v) => n + v, 0) };
}
