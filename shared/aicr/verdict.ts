// What a finished AICR run's exit code and error output mean for the control plane, per
// command (docs/aicr-runs.md has the table). Decided once per failed Job and recorded on it, so
// the three-run bound and the Events never depend on reading the Pod twice.
import type { Stage } from './stages.ts';
import { STAGE_COMMAND } from './stages.ts';

export const VERDICT = {
  /** Counts toward the three-run bound. */
  counted: 'counted',
  /** Exit 6: retried with backoff, not counted. */
  transient: 'transient',
  /** AICR refused its input: running it again cannot help; the spec must change. */
  refused: 'refused',
  /** The registry refused the push (401/403), which v0.11.1 reports as exit 6. */
  unauthorized: 'unauthorized',
} as const;
export type Verdict = (typeof VERDICT)[keyof typeof VERDICT];

export function isVerdict(v: string | undefined): v is Verdict {
  return v !== undefined && (Object.values(VERDICT) as string[]).includes(v);
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const TAIL_LINES = 6;
const TAIL_BYTES = 1024;

/** The line AICR ends a failed command with: `[cli] command failed: error=[CODE] … exitCode=N`. */
const COMMAND_FAILED = /command failed: error=(.*?)(?: exitCode=[0-9]+)?$/;

/**
 * The end of a run's error output, without colour codes, short enough for a condition and an
 * annotation: AICR's own error line when it printed one, else the last lines.
 */
export function errorTail(output: string): string {
  const lines = output
    .replace(ANSI, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
  const failed = lines
    .map((l) => COMMAND_FAILED.exec(l)?.[1])
    .filter((l) => l !== undefined)
    .at(-1);
  const tail = failed ?? lines.slice(-TAIL_LINES).join('\n');
  return tail.length > TAIL_BYTES ? `…${tail.slice(-TAIL_BYTES)}` : tail;
}

/** A push the registry refused (401/403), which AICR wraps like an outage. */
const REGISTRY_REFUSAL =
  /failed to push artifact to registry[\s\S]*(\b401\b|\b403\b|unauthorized|denied|forbidden|credential not found)/i;
/**
 * An outage AICR reports inside another code: v0.11.1's `bundle` wraps a failed push as INTERNAL
 * (exit 8); newer releases exit 6.
 */
const NESTED_UNAVAILABLE = /\[SERVICE_UNAVAILABLE\]/;
/** AICR's own code for bad input, which `recipe` re-wraps as INTERNAL (exit 8). */
const INVALID_REQUEST = /\[INVALID_REQUEST\]/;

/** v0.11.1's `validate` wraps a failed readiness pre-flight as INTERNAL (exit 8); the text says what it was. */
const READINESS_REFUSAL = /readiness check failed/;

export function verdictOf(stage: Stage, exitCode: number | undefined, tail: string): Verdict {
  if (REGISTRY_REFUSAL.test(tail)) return VERDICT.unauthorized;
  if (exitCode === 6 || (exitCode === 8 && NESTED_UNAVAILABLE.test(tail))) return VERDICT.transient;
  if (exitCode === 2) return VERDICT.refused;
  if (exitCode === 8 && STAGE_COMMAND[stage] === 'recipe' && INVALID_REQUEST.test(tail)) return VERDICT.refused;
  if (exitCode === 8 && STAGE_COMMAND[stage] === 'validate' && READINESS_REFUSAL.test(tail)) return VERDICT.refused;
  return VERDICT.counted;
}

const MEANING: Readonly<Record<number, string>> = {
  1: 'an unclassified error',
  2: 'invalid input',
  3: 'something it needs was not found',
  4: 'unauthorized',
  5: 'a timeout',
  6: 'a service was unavailable',
  7: 'rate limited',
  8: 'an internal error',
};

/** `aicr <stage> exited <n> (<meaning>)` in the runbook's words, or how the run ended without an exit code. */
export function describeExit(stage: Stage, exitCode: number | undefined): string {
  const command = `aicr ${stage}`;
  if (exitCode === undefined) return `${command} ended without an exit code`;
  const meaning = MEANING[exitCode];
  return meaning ? `${command} exited ${exitCode} (${meaning})` : `${command} exited ${exitCode}`;
}
