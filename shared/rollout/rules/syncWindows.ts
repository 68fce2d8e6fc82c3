// Argo CD's own sync windows (WIN-3): the windows an AppProject sets on its Applications, picked
// and judged the way Argo CD v3.5.1's application controller does before an automated sync. A
// window applies to an Application when one of its lists matches it (applications by name,
// clusters by destination name or server, namespaces by destination namespace), or when all set
// lists do with andOperator. While a matching deny window is active, or matching allow windows
// exist and none is active, Argo CD skips the sync and only logs it, so an Application written then
// would sit OutOfSync until actionTimeout: the steps wait instead. Pure, so it is tested without
// a cluster; the judging itself is maintenanceWindows.ts, the same as the runtime's own windows.
import { isTimeZone } from '../../api/maintenance.ts';
import { parseDuration } from '../../api/duration.ts';
import { parseSchedule } from './cronSchedule.ts';
import type { MaintenanceWindow } from './maintenanceWindows.ts';

/** What the windows are matched against: the Application's name and destination. */
export interface SyncTarget {
  readonly name: string;
  readonly destination: { readonly server?: string; readonly name?: string; readonly namespace?: string };
}

/** One entry of an AppProject's spec.syncWindows, as far as judging needs it. */
interface SyncWindow {
  readonly kind?: unknown;
  readonly schedule?: unknown;
  readonly duration?: unknown;
  readonly applications?: unknown;
  readonly namespaces?: unknown;
  readonly clusters?: unknown;
  readonly timeZone?: unknown;
  readonly andOperator?: unknown;
}

export type ProjectWindows =
  | { readonly ok: true; readonly windows: readonly MaintenanceWindow[] }
  | { readonly ok: false; readonly problem: string };

const strings = (v: unknown): readonly string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/** A class `[a-z]` or `[!a-z]` starting at i, as a RegExp class and where it ends; undefined when it never closes. */
function classAt(pattern: string, i: number): { readonly out: string; readonly end: number } | undefined {
  const end = pattern.indexOf(']', i + 1);
  if (end < 0) return undefined;
  const body = pattern.slice(i + 1, end).replace(/\\/g, '\\\\');
  return { out: body.startsWith('!') ? `[^${body.slice(1)}]` : `[${body}]`, end };
}

const literal = (c: string): string => c.replace(/[\\^$.|+()[\]{}*?]/g, '\\$&');

type Piece = { readonly out: string; readonly depth: number };

/** One unescaped character outside a class; `depth` counts the open `{` choices. */
function pieceOf(c: string, depth: number): Piece {
  switch (c) {
    case '*':
      return { out: '.*', depth };
    case '?':
      return { out: '.', depth };
    case '{':
      return { out: '(?:', depth: depth + 1 };
    case '}':
      return depth > 0 ? { out: ')', depth: depth - 1 } : { out: literal(c), depth };
    case ',':
      return { out: depth > 0 ? '|' : ',', depth };
    default:
      return { out: literal(c), depth };
  }
}

/**
 * A glob as Argo CD matches window lists (gobwas/glob without separators): `*` is any run,
 * `?` one character, `[a-z]` and `[!a-z]` a class, `{a,b}` a choice, `\\` quotes the next character.
 */
function globRegExp(pattern: string): RegExp {
  let out = '';
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? '';
    const cls = c === '[' ? classAt(pattern, i) : undefined;
    if (cls) {
      out += cls.out;
      i = cls.end;
    } else if (c === '\\' && i + 1 < pattern.length) {
      out += literal(pattern[++i] ?? '');
    } else {
      const piece = pieceOf(c, depth);
      out += piece.out;
      depth = piece.depth;
    }
  }
  return new RegExp(`^${out}${')'.repeat(depth)}$`, 's');
}

function globMatch(pattern: string, value: string): boolean {
  if (pattern === '*') return true;
  try {
    return globRegExp(pattern).test(value);
  } catch {
    return false;
  }
}

const anyMatch = (patterns: readonly string[], value: string | undefined): boolean =>
  value !== undefined && value !== '' && patterns.some((p) => globMatch(p, value));

/** Whether the window applies to the target, in Argo CD's order and with its OR and AND rules. */
export function applies(w: SyncWindow, target: SyncTarget): boolean {
  const lists = [
    { set: strings(w.applications), hit: (ps: readonly string[]) => anyMatch(ps, target.name) },
    {
      set: strings(w.clusters),
      hit: (ps: readonly string[]) => anyMatch(ps, target.destination.name) || anyMatch(ps, target.destination.server),
    },
    { set: strings(w.namespaces), hit: (ps: readonly string[]) => anyMatch(ps, target.destination.namespace) },
  ].filter((l) => l.set.length > 0);
  if (lists.length === 0) return false;
  return w.andOperator === true ? lists.every((l) => l.hit(l.set)) : lists.some((l) => l.hit(l.set));
}

function label(w: SyncWindow): string {
  return `${String(w.kind)} "${String(w.schedule)}" for ${String(w.duration)}`;
}

/** One window as the evaluator takes it, or why Argo CD could not judge it either. */
function windowOf(w: SyncWindow): MaintenanceWindow | string {
  if (w.kind !== 'allow' && w.kind !== 'deny')
    return `window ${label(w)} has kind ${JSON.stringify(w.kind)}; Argo CD knows only allow and deny`;
  const schedule = typeof w.schedule === 'string' ? w.schedule : '';
  const parsed = parseSchedule(schedule);
  if (!parsed.ok) return `window ${label(w)} has a schedule that does not parse: ${parsed.problem}`;
  const durationMs = typeof w.duration === 'string' ? parseDuration(w.duration) : undefined;
  if (!durationMs)
    return (
      `window ${label(w)} has a duration the control plane does not read: write it in whole h, m and s, ` +
      'such as 1h30m'
    );
  // Argo CD falls back to UTC for a zone it does not know, and so does this.
  const zone = typeof w.timeZone === 'string' && w.timeZone !== '' && isTimeZone(w.timeZone) ? w.timeZone : 'UTC';
  return { kind: w.kind === 'allow' ? 'Allow' : 'Deny', schedule, durationMs, timeZone: zone };
}

/**
 * The AppProject's windows that apply to the target. A window that applies and cannot be read
 * makes the whole set a problem, as Argo CD then refuses every automated sync of the Application.
 */
export function projectWindowsFor(syncWindows: unknown, target: SyncTarget): ProjectWindows {
  const all = Array.isArray(syncWindows)
    ? syncWindows.filter((w): w is SyncWindow => typeof w === 'object' && w !== null)
    : [];
  const windows: MaintenanceWindow[] = [];
  for (const w of all.filter((x) => applies(x, target))) {
    const read = windowOf(w);
    if (typeof read === 'string') return { ok: false, problem: read };
    windows.push(read);
  }
  return { ok: true, windows };
}
