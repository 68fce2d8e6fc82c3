// Maintenance windows judged the way Argo CD judges AppProject sync windows: a window is a
// 5-field cron schedule in an IANA time zone plus a duration; any active Deny window closes,
// and when Allow windows exist it is open only while one of them is active. Pure and
// dependency-free: wall-clock fields come from Intl, so DST follows the platform's tz data.
import { type Schedule, parseSchedule } from './cronSchedule.ts';

export interface MaintenanceWindow {
  readonly kind: 'Allow' | 'Deny';
  readonly schedule: string;
  readonly durationMs: number;
  readonly timeZone: string;
}

export interface WindowJudgement {
  readonly open: boolean;
  readonly closesAt?: Date;
  readonly opensAt?: Date;
  readonly why: string;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const HORIZON_DAYS = 366;
const HORIZON_MS = HORIZON_DAYS * 24 * HOUR;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    const fields = { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' } as const;
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', ...fields });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall clock at an instant; `ms` is that wall-clock time read as if it were UTC. */
type Wall = Readonly<Record<'month' | 'day' | 'weekday' | 'hour' | 'minute' | 'ms', number>>;

function wall(timeZone: string, t: number): Wall {
  const parts = formatter(timeZone).formatToParts(t);
  const read = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value);
  const [year, month, day, hour, minute] = [
    read('year'),
    read('month'),
    read('day'),
    read('hour'),
    read('minute'),
  ] as const;
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return { month, day, weekday, hour, minute, ms: Date.UTC(year, month - 1, day, hour, minute) };
}

function dayMatches(s: Schedule, w: Wall): boolean {
  if (!s.month[w.month]) return false;
  const dom = s.dayOfMonth[w.day] ?? false;
  const dow = s.dayOfWeek[w.weekday] ?? false;
  return s.eitherDay ? dom || dow : dom && dow;
}

/** Minutes to move on from w towards the next match; 0 when w matches. */
function minutesToSkip(s: Schedule, w: Wall): number {
  const today = dayMatches(s, w);
  if (today && s.hour[w.hour]) {
    const minute = s.minute.indexOf(true, w.minute);
    if (minute !== -1) return minute - w.minute;
  }
  const nextHour = today ? s.hour.indexOf(true, w.hour + 1) : -1;
  const target = nextHour === -1 ? 24 : nextHour;
  // Stop an hour short of the target: a spring-forward on the way would otherwise carry us past it.
  return target - 1 > w.hour ? (target - 1 - w.hour) * 60 - w.minute : 60 - w.minute;
}

/** On a fall-back day a repeated wall-clock time counts at its first instant only. */
function isRepeat(timeZone: string, t: number, w: Wall): boolean {
  const drop = wall(timeZone, t - HOUR).ms - (t - HOUR) - (w.ms - t);
  return drop > 0 && wall(timeZone, t - drop).ms === w.ms;
}

/** The earliest occurrence in [from, until], in ms; whole days and hours are skipped at one formatter call each. */
function search(s: Schedule, timeZone: string, from: number, until: number): number | undefined {
  for (let t = Math.ceil(from / MINUTE) * MINUTE; t <= until;) {
    const w = wall(timeZone, t);
    const skip = minutesToSkip(s, w);
    if (skip === 0 && !isRepeat(timeZone, t, w)) return t;
    t += (skip || 60 - w.minute) * MINUTE;
  }
  return undefined;
}

export function nextOccurrence(schedule: Schedule, timeZone: string, from: Date): Date | undefined {
  const at = search(schedule, timeZone, from.getTime(), from.getTime() + HORIZON_MS);
  return at === undefined ? undefined : new Date(at);
}

type Judged = { readonly window: MaintenanceWindow; readonly schedule: Schedule };

function prepare(window: MaintenanceWindow): Judged {
  const parsed = parseSchedule(window.schedule);
  if (!parsed.ok) throw new Error(`maintenance window schedule "${window.schedule}" does not parse: ${parsed.problem}`);
  if (!(window.durationMs > 0))
    throw new Error(
      `maintenance window "${window.schedule}" has a duration of ${window.durationMs}ms; it must be above 0`,
    );
  return { window, schedule: parsed.schedule };
}

const startsIn = (j: Judged, from: number, until: number): number | undefined =>
  search(j.schedule, j.window.timeZone, from, until);
const activeAt = (j: Judged, t: number): boolean => startsIn(j, t - j.window.durationMs + 1, t) !== undefined;

/** A late occurrence s with t - duration < s <= t. Looking back 0, 1, 2, 4… minutes crosses a chain of
 * overlapping occurrences (say every minute for an hour) in strides of about the duration, not minute by minute. */
function lateStart(j: Judged, t: number): number | undefined {
  const reachMax = j.window.durationMs - 1;
  for (let back = 0; ; back = Math.max(MINUTE, back * 2)) {
    const reach = Math.min(back, reachMax);
    const s = startsIn(j, t - reach, t);
    if (s !== undefined || reach >= reachMax) return s;
  }
}

/** Where the run of j's overlapping or adjacent occurrences covering t ends; undefined when j is not active at t. */
function chainEnd(j: Judged, t: number, horizon: number): number | undefined {
  const first = lateStart(j, t);
  if (first === undefined) return undefined;
  let end = first + j.window.durationMs;
  while (end <= horizon) {
    const next = lateStart(j, end);
    if (next === undefined) break;
    end = next + j.window.durationMs;
  }
  return end;
}

/** The first instant at or after t at which none of the windows is active (may lie past the horizon). */
function unionEnd(windows: readonly Judged[], t: number, horizon: number): number {
  let end = t;
  while (end <= horizon) {
    const ends = windows.map((j) => chainEnd(j, end, horizon)).filter((e) => e !== undefined);
    if (ends.length === 0) break;
    end = Math.max(...ends);
  }
  return end;
}

function closesAt(
  allows: readonly Judged[],
  denies: readonly Judged[],
  now: number,
  horizon: number,
): number | undefined {
  const ends = denies.map((j) => startsIn(j, now + 1, horizon));
  if (allows.length > 0) ends.push(unionEnd(allows, now, horizon));
  const within = ends.filter((e): e is number => e !== undefined && e <= horizon);
  return within.length > 0 ? Math.min(...within) : undefined;
}

/** Candidates are the ends of deny runs and the starts of allow occurrences; each is judged as `now` is. */
function opensAt(
  allows: readonly Judged[],
  denies: readonly Judged[],
  now: number,
  horizon: number,
): number | undefined {
  let t = now;
  while (t <= horizon) {
    if (denies.some((j) => activeAt(j, t))) {
      t = unionEnd(denies, t, horizon);
      continue;
    }
    if (allows.length === 0 || allows.some((j) => activeAt(j, t))) return t;
    const starts = allows.map((j) => startsIn(j, t + 1, horizon)).filter((s) => s !== undefined);
    if (starts.length === 0) return undefined;
    t = Math.min(...starts);
  }
  return undefined;
}

function spell(ms: number): string {
  let rest = ms;
  let out = '';
  for (const [unit, size] of [
    ['h', HOUR],
    ['m', MINUTE],
    ['s', 1000],
    ['ms', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out || '0s';
}

const named = (j: Judged): string => `"${j.window.schedule}" (${spell(j.window.durationMs)}, ${j.window.timeZone})`;
const iso = (ms: number): string => new Date(ms).toISOString();

function closed(why: string, at: number | undefined, then: string): WindowJudgement {
  if (at === undefined) return { open: false, why: `${why}, and nothing opens within ${HORIZON_DAYS} days` };
  return { open: false, opensAt: new Date(at), why: `${why}${then}${iso(at)}` };
}

function opened(why: string, at: number | undefined, then: string): WindowJudgement {
  if (at === undefined) return { open: true, why: `${why}, and nothing closes within ${HORIZON_DAYS} days` };
  return { open: true, closesAt: new Date(at), why: `${why}${then}${iso(at)}` };
}

export function judgeWindows(windows: readonly MaintenanceWindow[], now: Date): WindowJudgement {
  const t = now.getTime();
  const horizon = t + HORIZON_MS;
  const judged = windows.map(prepare);
  const allows = judged.filter((j) => j.window.kind === 'Allow');
  const denies = judged.filter((j) => j.window.kind === 'Deny');
  const deny = denies.find((j) => activeAt(j, t));
  if (deny) return closed(`inside deny window ${named(deny)}`, opensAt(allows, denies, t, horizon), ' until ');
  const allow = allows.find((j) => activeAt(j, t));
  if (allows.length > 0 && !allow)
    return closed('outside every allow window', opensAt(allows, denies, t, horizon), '; the next opens at ');
  if (judged.length === 0) return { open: true, why: 'no maintenance windows are set' };
  const ends = closesAt(allows, denies, t, horizon);
  if (allow) return opened(`inside allow window ${named(allow)}`, ends, ' until ');
  return opened('outside every deny window', ends, '; the next starts at ');
}
