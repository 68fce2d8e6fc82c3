// Structured JSON logs. Each line of a message's handling carries the runtime UID, plan
// digest, rollout and run ID when known. Only keys and control-plane-chosen text are logged:
// never spec values, server replies or credentials.

export interface LogContext {
  readonly runtimeUID?: string;
  readonly planDigest?: string;
  readonly rollout?: string;
  readonly runId?: string;
  readonly step?: string;
  readonly messageId?: string;
  readonly group?: string;
}

export type LogValue = string | number | boolean | null | undefined | readonly string[];
export type LogFields = Readonly<Record<string, LogValue>>;
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SENSITIVE_KEY = /token|secret|password|passwd|authorization|credential|cookie|private.?key|^values?$/i;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(ctx: LogContext): Logger;
}

export type LogSink = (line: string) => void;

const stdoutSink: LogSink = (line) => process.stdout.write(`${line}\n`);

function scrub(fields: LogFields): Record<string, LogValue> {
  const out: Record<string, LogValue> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    out[k] = SENSITIVE_KEY.test(k) ? '[redacted]' : v;
  }
  return out;
}

export function createLogger(opts: { level?: LogLevel; sink?: LogSink; context?: LogContext; service?: string } = {}): Logger {
  const level = opts.level ?? ((process.env['LOG_LEVEL'] as LogLevel | undefined) ?? 'info');
  const sink = opts.sink ?? stdoutSink;
  const context = opts.context ?? {};
  const service = opts.service ?? 'aicr-control-plane';
  const emit = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields: LogFields = {}): void => {
    if (ORDER[lvl] < (ORDER[level] ?? ORDER.info)) return;
    sink(JSON.stringify({ time: new Date().toISOString(), level: lvl, service, msg, ...context, ...scrub(fields) }));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (ctx) => createLogger({ level, sink, service, context: { ...context, ...ctx } }),
  };
}
