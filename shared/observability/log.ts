// Structured JSON logs, one object per line, in the Powertools Logger shape: `level`,
// `message`, `timestamp`, `service`, then the Lambda context (`cold_start`, `function_name`,
// `function_request_id`, …) when running in Lambda, then our context keys and the fields.
// Each line of a message's handling carries the runtime UID, plan digest, rollout and run ID
// when known. Only keys and control-plane-chosen text are logged: never spec values, server
// replies or credentials; a field whose name looks sensitive is redacted whatever its value.
import { Logger as PowertoolsLogger, LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { type MetricPoint, METRIC_NAMES, emfFields } from './metrics.ts';

export interface LogContext {
  readonly runtimeUID?: string;
  readonly planDigest?: string;
  readonly rollout?: string;
  readonly runId?: string;
  readonly step?: string;
  /** What woke a step: the work item's cause (a watched change, a recheck, a retry). */
  readonly cause?: string;
  /** The kind a forwarder watches. */
  readonly watched?: string;
  readonly messageId?: string;
  readonly group?: string;
  /** The further cluster of a fleet a line concerns (ADR 0019); absent for the deployment's own. */
  readonly cluster?: string;
}

export type LogValue = string | number | boolean | null | undefined | readonly string[];
export type LogFields = Readonly<Record<string, LogValue>>;
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
type LineLevel = Exclude<LogLevel, 'silent'>;
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const THRESHOLD: Record<LineLevel, number> = {
  debug: LogLevelThreshold.DEBUG,
  info: LogLevelThreshold.INFO,
  warn: LogLevelThreshold.WARN,
  error: LogLevelThreshold.ERROR,
};
const SENSITIVE_KEY = /token|secret|password|passwd|authorization|credential|cookie|private.?key|^values?$/i;
export const REDACTED = '[redacted]';
export const DEFAULT_SERVICE = 'aicr-control-plane';

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /**
   * A metric (./metrics.ts names them all), on a line of its own in CloudWatch's embedded metric
   * format: on AWS CloudWatch turns it into the metric, and locally the number is in the log.
   */
  metric(point: MetricPoint): void;
  child(ctx: LogContext): Logger;
}

export type LogSink = (line: string) => void;

const stdoutSink: LogSink = (line) => process.stdout.write(`${line}\n`);

/** Applied to every key of every line, nested ones too, as the line is serialised. */
function redact(key: string, value: unknown): unknown {
  return value !== undefined && SENSITIVE_KEY.test(key) && !(METRIC_NAMES.has(key) && typeof value === 'number')
    ? REDACTED
    : value;
}

/**
 * The process's one Powertools logger. It holds the current invocation's Lambda context and
 * cold-start flag (set by `lambdaLogContext()` in ./lambda.ts) and turns each record into a
 * line; the `Logger` that made the record writes the line to its own sink and applies its own
 * level, so tests can read lines back and one process can hold loggers of different levels.
 */
class LineBuilder extends PowertoolsLogger {
  line(level: LineLevel, message: string, attributes: Readonly<Record<string, unknown>>, service: string): string {
    const item = this.createAndPopulateLogItem(THRESHOLD[level], message, [attributes]);
    item.addAttributes({ service });
    item.prepareForPrint();
    return JSON.stringify(item.getAttributes(), this.getJsonReplacer());
  }
}

let builder: LineBuilder | undefined;

/** Built on first use, so it reads the environment (Lambda's initialization type) as it is then. */
export function powertoolsLogger(): PowertoolsLogger {
  return lineBuilder();
}

function lineBuilder(): LineBuilder {
  builder ??= new LineBuilder({ serviceName: DEFAULT_SERVICE, jsonReplacerFn: redact });
  return builder;
}

export function createLogger(
  opts: { level?: LogLevel; sink?: LogSink; context?: LogContext; service?: string } = {},
): Logger {
  const level = opts.level ?? (process.env['LOG_LEVEL'] as LogLevel | undefined) ?? 'info';
  const sink = opts.sink ?? stdoutSink;
  const context = opts.context ?? {};
  // On AWS each deployment names itself, so the metrics of several clusters in one account stay apart.
  const service = opts.service ?? process.env['AICR_SERVICE_NAME'] ?? DEFAULT_SERVICE;
  const emit = (lvl: LineLevel, msg: string, fields: LogFields = {}): void => {
    if (ORDER[lvl] < (ORDER[level] ?? ORDER.info)) return;
    sink(lineBuilder().line(lvl, msg, { ...context, ...fields }, service));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    metric: (point) => {
      if (level === 'silent') return;
      // `service` is the logger's own key, which it sets to the same value.
      const fields = emfFields(point, service);
      delete fields['service'];
      sink(lineBuilder().line('info', 'metric', { ...context, ...fields }, service));
    },
    child: (ctx) => createLogger({ level, sink, service, context: { ...context, ...ctx } }),
  };
}
