// spec.maintenance: when a rollout may start its steps (WIN-1, WIN-2). Windows are read as Argo
// CD reads an AppProject's sync windows: a cron schedule in a time zone opens a window for a
// duration; deny windows win over allow windows, and with any allow window a step starts only
// inside one. One regular expression states the whole schedule grammar, so the API server (RE2)
// and the control plane (JavaScript) accept exactly the same schedules; a range written high to
// low wraps around (22-2 is 22, 23, 0, 1, 2), so nothing the expression accepts is refused later.
import * as z from 'zod';
import { type CelCheck, celString, withCel } from './cel.ts';
import { apiObject, boundedString, described, durationString, patternString } from './fields.ts';

const MONTHS = 'JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC';
const DAYS = 'SUN|MON|TUE|WED|THU|FRI|SAT';
const names = (list: string): string => `${list}|${list.toLowerCase()}`;

/** One field's values as numbers or names, each form spelled out (RE2 has no look-around). */
const ATOMS = {
  minute: '[0-5]?[0-9]',
  hour: '[01]?[0-9]|2[0-3]',
  dayOfMonth: '0?[1-9]|[12][0-9]|3[01]',
  month: `0?[1-9]|1[0-2]|${names(MONTHS)}`,
  dayOfWeek: `[0-7]|${names(DAYS)}`,
} as const;

/** `*`, a value or a range, optionally stepped; then more of those, comma-separated. */
function fieldPattern(atom: string): string {
  const one = `(\\*|(${atom})(-(${atom}))?)(/[1-9][0-9]?)?`;
  return `${one}(,${one})*`;
}

export const SCHEDULE_PATTERN = new RegExp(`^${Object.values(ATOMS).map(fieldPattern).join(' ')}$`);
const SCHEDULE_MAX_LENGTH = 128;
export const SCHEDULE_MESSAGE =
  'must be a cron schedule of five fields separated by single spaces: minute (0-59) hour ' +
  '(0-23) day-of-month (1-31) month (1-12 or JAN-DEC) day-of-week (0-7 or SUN-SAT), each *, ' +
  'a value, a range a-b or a list, optionally with a step /n';

/**
 * IANA names as zoneinfo spells them (each part capitalised), or UTC: what Go's time.LoadLocation
 * and Intl both know. Go also takes "Local", the API server's own zone, which Intl does not.
 */
const TIME_ZONE_FORM = /^(UTC|[A-Z][A-Za-z_-]*(\/[A-Z][A-Za-z0-9_+-]*){0,2})$/;
const TIME_ZONE_MESSAGE = 'must be an IANA time zone such as UTC, Europe/Berlin or America/New_York';

/** Whether Intl, and so the control plane's judging of windows, knows the zone. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

// The API server loads the zone to read an hour in it; an unknown zone fails that evaluation,
// which refuses the object as a false rule would.
const timeZoneCheck: CelCheck<string> = {
  rule:
    `self != 'Local' && self.matches(${celString(TIME_ZONE_FORM.source)}) && ` +
    `timestamp('2000-01-01T00:00:00Z').getHours(self) >= 0`,
  message: TIME_ZONE_MESSAGE,
  holds: (s) => s !== 'Local' && TIME_ZONE_FORM.test(s) && isTimeZone(s),
};

const MAX_WINDOWS = 16;

const MaintenanceWindowSchema = apiObject(
  z.object({
    kind: described(
      z.enum(['Allow', 'Deny']),
      'Allow: steps may start inside the window. Deny: no step starts inside it, whatever the allow windows say.',
    ).default('Allow'),
    schedule: patternString(
      { pattern: SCHEDULE_PATTERN, maxLength: SCHEDULE_MAX_LENGTH, message: SCHEDULE_MESSAGE },
      'When the window opens: a cron schedule (minute hour day-of-month month day-of-week), read in timeZone.',
    ),
    duration: durationString(
      { min: '1m', max: '168h', maxInWords: '7 days' },
      'How long the window stays open from each start; 1m to 168h.',
    ),
    timeZone: withCel(
      boundedString(64, 'The IANA time zone the schedule is read in, such as Europe/Berlin.'),
      timeZoneCheck,
    ).default('UTC'),
  }),
).meta({ description: 'One maintenance window.' });

export const MaintenanceSchema = apiObject(
  z.object({
    windows: described(
      z.array(MaintenanceWindowSchema).max(MAX_WINDOWS),
      `When rollout steps may start, at most ${MAX_WINDOWS}. None: at any time. With any Allow ` +
        `window, only inside one; never inside a Deny window.`,
    ).optional(),
  }),
).meta({
  description:
    'When the control plane may change the cluster. Creating and approving a rollout is ' +
    'possible at any time; its steps wait for a window.',
});
export type Maintenance = z.output<typeof MaintenanceSchema>;
