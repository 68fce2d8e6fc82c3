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
  if (size < mark) throw new Error(`the audit log ${file} is shorter than the mark (${size} < ${mark} bytes): it was rotated, so requests since the mark cannot be counted`);
  const buf = Buffer.alloc(size - mark);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buf, 0, buf.length, mark);
  } finally {
    closeSync(fd);
  }
  const text = buf.toString('utf8');
  // A line still being written is left for the next read.
  return parseLines(text.slice(0, text.lastIndexOf('\n') + 1));
}

/** Waits until the log has settled, since entries for in-flight requests land slightly later. */
export async function settleAudit(quietMs = 300, capMs = 3_000): Promise<void> {
  let last = -1;
  // A busy cluster (controllers, leases, Argo CD's periodic refresh) is never quiet for long;
  // the log is written before each response (blocking mode), so a short cap loses nothing we caused.
  const until = Date.now() + capMs;
  for (;;) {
    const n = auditMark();
    if (n === last || Date.now() >= until) return;
    last = n;
    await new Promise((r) => setTimeout(r, quietMs));
  }
}

/** The control plane's own requests since a mark, once the log has settled. */
export async function controlPlaneEventsSince(mark: number): Promise<AuditEvent[]> {
  await settleAudit();
  return auditSince(mark).filter((e) => e.user.username === CONTROL_PLANE_USER);
}
