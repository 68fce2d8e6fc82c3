// Cron schedules as Argo CD's sync windows write them (robfig/cron): five fields, each a list of
// "*", values, names and ranges with optional steps. Pure and dependency-free.

/** A parsed schedule; each field is a membership table indexed by value. */
export interface Schedule {
  readonly minute: readonly boolean[];
  readonly hour: readonly boolean[];
  readonly dayOfMonth: readonly boolean[];
  readonly month: readonly boolean[];
  readonly dayOfWeek: readonly boolean[];
  /** Both day fields are restricted, so a day matches when either does (standard cron). */
  readonly eitherDay: boolean;
}

export type ScheduleParse =
  { readonly ok: true; readonly schedule: Schedule } | { readonly ok: false; readonly problem: string };

/** `names` spell min, min+1, …: JAN is 1, SUN is 0. */
type FieldSpec = {
  readonly position: number;
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
};

const FIELDS = {
  minute: { position: 1, name: 'minute', min: 0, max: 59 },
  hour: { position: 2, name: 'hour', min: 0, max: 23 },
  dayOfMonth: { position: 3, name: 'day-of-month', min: 1, max: 31 },
  month: {
    position: 4,
    name: 'month',
    min: 1,
    max: 12,
    names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
  },
  dayOfWeek: {
    position: 5,
    name: 'day-of-week',
    min: 0,
    max: 7,
    names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
  },
} as const satisfies Record<string, FieldSpec>;

class FieldProblem extends Error {}

function fail(spec: FieldSpec, why: string): never {
  throw new FieldProblem(`field ${spec.position} (${spec.name}) ${why}`);
}

function valueOf(text: string, spec: FieldSpec): number {
  const named = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return named + spec.min;
  if (!/^\d+$/.test(text)) fail(spec, `"${text}" is not a number${spec.names ? ' or a name' : ''}`);
  const value = Number(text);
  if (value < spec.min || value > spec.max) fail(spec, `"${text}" is outside ${spec.min}-${spec.max}`);
  return value;
}

function stepOf(text: string | undefined, item: string, spec: FieldSpec): number {
  if (text === undefined) return 1;
  if (!/^\d+$/.test(text) || Number(text) === 0) fail(spec, `"${item}" has a step that is not a whole number above 0`);
  return Number(text);
}

/** One list item as first, last and step: "*", "a", "a-b", each optionally "/n". */
function itemRange(item: string, spec: FieldSpec): readonly [number, number, number] {
  if (item === '') fail(spec, 'has an empty list item');
  const [range = '', stepText, extra] = item.split('/');
  if (extra !== undefined) fail(spec, `"${item}" has more than one step`);
  const step = stepOf(stepText, item, spec);
  if (range === '*') return [spec.min, spec.max, step];
  const [firstText = '', lastText, more] = range.split('-');
  if (more !== undefined) fail(spec, `"${item}" is not a single range`);
  const first = valueOf(firstText, spec);
  // "a/n" means "a-max/n", as Argo CD's cron parser (robfig/cron) reads it.
  const last = lastText !== undefined ? valueOf(lastText, spec) : stepText !== undefined ? spec.max : first;
  return [first, last, step];
}

// A range written high to low wraps past the field's end (hours 22-2 are 22, 23, 0, 1, 2): the
// API's schedule pattern cannot tell the two orders apart, so both must mean something.
function parseField(text: string, spec: FieldSpec): boolean[] {
  const marks = new Array<boolean>(spec.max + 1).fill(false);
  const span = spec.max - spec.min + 1;
  for (const item of text.split(',')) {
    const [first, last, step] = itemRange(item, spec);
    const count = last >= first ? last - first : last - first + span;
    for (let k = 0; k <= count; k += step) marks[spec.min + ((first - spec.min + k) % span)] = true;
  }
  return marks;
}

function scheduleOf([
  minute = '',
  hour = '',
  dayOfMonth = '',
  month = '',
  dayOfWeek = '',
]: readonly string[]): Schedule {
  const schedule = {
    minute: parseField(minute, FIELDS.minute),
    hour: parseField(hour, FIELDS.hour),
    dayOfMonth: parseField(dayOfMonth, FIELDS.dayOfMonth),
    month: parseField(month, FIELDS.month),
    dayOfWeek: parseField(dayOfWeek, FIELDS.dayOfWeek),
    eitherDay: dayOfMonth !== '*' && dayOfWeek !== '*',
  };
  schedule.dayOfWeek[0] ||= schedule.dayOfWeek[7] ?? false; // 7 is Sunday too
  return schedule;
}

export function parseSchedule(text: string): ScheduleParse {
  const fields = text
    .trim()
    .split(/\s+/)
    .filter((f) => f !== '');
  if (fields.length !== 5) {
    const counted = `${fields.length} field${fields.length === 1 ? '' : 's'}`;
    return { ok: false, problem: `it has ${counted}; a schedule has 5: minute hour day-of-month month day-of-week` };
  }
  try {
    return { ok: true, schedule: scheduleOf(fields) };
  } catch (e) {
    if (e instanceof FieldProblem) return { ok: false, problem: e.message };
    throw e;
  }
}
