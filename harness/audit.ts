// Reads the API server's own audit log, so tests and benchmarks count API requests from the
// server's record rather than from the client's opinion of what it sent.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { CONTROL_PLANE_USER, testEnv } from './env.ts';

export interface AuditEvent {
  readonly auditID: string;
  readonly stage: string;
  readonly verb: string;
  readonly requestURI: string;
  readonly user: { readonly username: string };
  /** Set when the request acted as another identity (a step's or the forwarder's own). */
  readonly impersonatedUser?: { readonly username: string; readonly groups?: readonly string[] };
  readonly userAgent?: string;
  readonly objectRef?: {
    readonly resource?: string;
    readonly subresource?: string;
    readonly name?: string;
    readonly namespace?: string;
    readonly apiGroup?: string;
  };
  readonly responseStatus?: { readonly code?: number };
  /** The request's body: kept only for writes to Applications (test/env/audit-policy.yaml). */
  readonly requestObject?: unknown;
}

function parseLines(text: string): AuditEvent[] {
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as AuditEvent);
}

/** Every audit event written so far, in the order the server wrote them. */
export function readAudit(file = testEnv().TESTENV_AUDIT_LOG): AuditEvent[] {
  return parseLines(readFileSync(file, 'utf8'));
}

/**
 * A mark in the audit log (its size in bytes); events after it are the ones a test caused. A
 * byte offset, so reading what came after costs only that, however long the suite's log grows.
 */
export function auditMark(file = testEnv().TESTENV_AUDIT_LOG): number {
  return statSync(file).size;
}

/** The complete events written after the mark. */
export function auditSince(mark: number, file = testEnv().TESTENV_AUDIT_LOG): AuditEvent[] {
  const size = statSync(file).size;
  if (size < mark)
    throw new Error(
      `the audit log ${file} is shorter than the mark (${size} < ${mark} bytes): it was rotated, ` +
        'so requests since the mark cannot be counted',
    );
  return linesAfter(mark, file).events;
}

/**
 * Requests that never pause and that no test waits on: the cluster's own components and Argo
 * CD's (leases, controllers, periodic refreshes), the process node's, and the tests' own reads as
 * admin while they poll. Among them the log is never quiet for long.
 */
function background(e: AuditEvent): boolean {
  const user = e.user.username;
  if (user.startsWith('system:') && !user.startsWith('system:serviceaccount:')) return true;
  if (/^system:serviceaccount:(kube-system|argocd):/.test(user)) return true;
  if (user === 'aicr-testenv-process-node') return true;
  return user === 'aicr-test-admin' && !e.impersonatedUser && ['get', 'list', 'watch'].includes(e.verb);
}

/**
 * The events after a byte mark that are whole lines (one still being written is left for the next
 * read), and the mark after them. A mark taken while the server was writing a line falls inside
 * it: that line began before the mark, so it is not among them.
 */
function linesAfter(mark: number, file = testEnv().TESTENV_AUDIT_LOG): { events: AuditEvent[]; next: number } {
  const size = statSync(file).size;
  if (size <= mark) return { events: [], next: mark };
  const from = Math.max(0, mark - 1);
  const buf = Buffer.alloc(size - from);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buf, 0, buf.length, from);
  } finally {
    closeSync(fd);
  }
  const start = mark === 0 ? 0 : buf.indexOf(0x0a) + 1;
  const end = buf.lastIndexOf(0x0a) + 1;
  if (start === 0 && mark > 0) return { events: [], next: mark };
  const whole = buf.subarray(start, Math.max(start, end));
  return { events: parseLines(whole.toString('utf8')), next: from + Math.max(start, end) };
}

/**
 * Waits until the log has settled, since entries for in-flight requests land slightly later:
 * until no request of the control plane, of a person or of a workload has been logged for
 * `quietMs`, or `capMs` at most. Background requests (see background) do not count, or the
 * wait would always run to the cap; the log is written before each response (blocking mode),
 * so a request a test awaited is in it already.
 */
export async function settleAudit(quietMs = 300, capMs = 3_000): Promise<void> {
  const until = Date.now() + capMs;
  let mark = auditMark();
  for (;;) {
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(quietMs, until - Date.now()))));
    const { events, next } = linesAfter(mark);
    mark = next;
    if (!events.some((e) => !background(e)) || Date.now() >= until) return;
  }
}

/** The control plane's own requests since a mark, once the log has settled. */
export async function controlPlaneEventsSince(mark: number): Promise<AuditEvent[]> {
  await settleAudit();
  return auditSince(mark).filter((e) => e.user.username === CONTROL_PLANE_USER);
}
