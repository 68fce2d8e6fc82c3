import { type Logger, createLogger } from '../shared/observability/log.ts';

/** A logger whose lines a test can read back. */
export function captureLogger(level: 'debug' | 'info' = 'debug'): {
  log: Logger;
  lines: string[];
  records: () => Record<string, unknown>[];
} {
  const lines: string[] = [];
  const log = createLogger({ level, sink: (l) => lines.push(l) });
  return { log, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}
