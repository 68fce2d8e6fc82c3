// Maintenance windows judged as Argo CD judges sync windows: cron schedules in IANA time zones,
// deny over allow, and the instant the judgement next changes. Dates are chosen around real
// DST changes (2026-03-29 in Berlin, 2026-03-08 and 2026-11-01 in New York).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SCHEDULE_PATTERN, isTimeZone } from '../../shared/api/maintenance.ts';
import { type Schedule, parseSchedule } from '../../shared/rollout/rules/cronSchedule.ts';
import { type MaintenanceWindow, judgeWindows, nextOccurrence } from '../../shared/rollout/rules/maintenanceWindows.ts';

const HOUR = 3_600_000;

function schedule(text: string): Schedule {
  const parsed = parseSchedule(text);
  assert.ok(parsed.ok, `"${text}" should parse`);
  return parsed.schedule;
}

const next = (text: string, timeZone: string, from: string): string | undefined =>
  nextOccurrence(schedule(text), timeZone, new Date(from))?.toISOString();
const allow = (text: string, hours: number, timeZone = 'UTC'): MaintenanceWindow => ({
  kind: 'Allow',
  schedule: text,
  durationMs: hours * HOUR,
  timeZone,
});
const deny = (text: string, hours: number, timeZone = 'UTC'): MaintenanceWindow => ({
  kind: 'Deny',
  schedule: text,
  durationMs: hours * HOUR,
  timeZone,
});
const judge = (windows: readonly MaintenanceWindow[], now: string) => judgeWindows(windows, new Date(now));
/** The judgement with its instants as ISO strings, so one deepEqual checks all of it. */
function plain(windows: readonly MaintenanceWindow[], now: string): Record<string, unknown> {
  const j = judge(windows, now);
  return {
    ...j,
    ...(j.closesAt && { closesAt: j.closesAt.toISOString() }),
    ...(j.opensAt && { opensAt: j.opensAt.toISOString() }),
  };
}

test('WIN-1 an allow window opens and closes at its schedule in its time zone; deny wins over allow; the next opening is named', () => {
  const weekdays = [allow('0 22 * * 1-5', 2, 'Europe/Berlin')];
  assert.deepEqual(plain(weekdays, '2026-12-02T21:30:00Z'), {
    open: true,
    closesAt: '2026-12-02T23:00:00.000Z',
    why: 'inside allow window "0 22 * * 1-5" (2h, Europe/Berlin) until 2026-12-02T23:00:00.000Z',
  });
  assert.deepEqual(plain(weekdays, '2026-12-02T12:00:00Z'), {
    open: false,
    opensAt: '2026-12-02T21:00:00.000Z',
    why: 'outside every allow window; the next opens at 2026-12-02T21:00:00.000Z',
  });
  // The start is inside, the end is not; after Friday night the next opening is Monday's.
  assert.equal(judge(weekdays, '2026-12-02T21:00:00Z').open, true);
  assert.equal(judge(weekdays, '2026-12-02T23:00:00Z').open, false);
  assert.equal(judge(weekdays, '2026-12-04T23:30:00Z').opensAt?.toISOString(), '2026-12-07T21:00:00.000Z');

  const withDeny = [allow('0 0 * * *', 24), deny('0 12 * * *', 1)];
  assert.deepEqual(plain(withDeny, '2026-12-02T11:00:00Z'), {
    open: true,
    closesAt: '2026-12-02T12:00:00.000Z',
    why: 'inside allow window "0 0 * * *" (24h, UTC) until 2026-12-02T12:00:00.000Z',
  });
  assert.deepEqual(plain(withDeny, '2026-12-02T12:00:00Z'), {
    open: false,
    opensAt: '2026-12-02T13:00:00.000Z',
    why: 'inside deny window "0 12 * * *" (1h, UTC) until 2026-12-02T13:00:00.000Z',
  });
  assert.deepEqual(plain([...withDeny].reverse(), '2026-12-02T12:30:00Z'), plain(withDeny, '2026-12-02T12:30:00Z'));
});

test('WIN-1 a deny window ending inside an allow window opens it; an allow window wholly inside a deny window never does', () => {
  assert.equal(
    judge([deny('0 20 * * *', 1), allow('0 19 * * *', 3)], '2026-12-02T20:30:00Z').opensAt?.toISOString(),
    '2026-12-02T21:00:00.000Z',
  );
  // The deny ends at 22:00 but no allow is active then, so the opening is the next allow start after it.
  assert.equal(
    judge(
      [deny('0 20 * * *', 2), allow('0 21 * * *', 1), allow('0 23 * * *', 1)],
      '2026-12-02T20:30:00Z',
    ).opensAt?.toISOString(),
    '2026-12-02T23:00:00.000Z',
  );
  assert.deepEqual(plain([deny('0 20 * * *', 4), allow('0 21 * * *', 2)], '2026-12-02T20:30:00Z'), {
    open: false,
    why: 'inside deny window "0 20 * * *" (4h, UTC), and nothing opens within 366 days',
  });
});

test('WIN-1 windows crossing midnight, and overlapping or adjacent allow windows, close at the end of them all', () => {
  assert.equal(
    judge([allow('0 23 * * *', 3)], '2026-12-03T01:00:00Z').closesAt?.toISOString(),
    '2026-12-03T02:00:00.000Z',
  );
  assert.equal(
    judge([allow('0 23 * * *', 3, 'Europe/Berlin')], '2026-12-03T00:30:00Z').closesAt?.toISOString(),
    '2026-12-03T01:00:00.000Z',
  );
  assert.equal(judge([allow('0 23 * * *', 3, 'Europe/Berlin')], '2026-12-03T01:00:00Z').open, false);
  const chained = [allow('0 8 * * *', 2), allow('0 10 * * *', 2), allow('30 11 * * *', 1)];
  assert.equal(judge(chained, '2026-12-02T09:00:00Z').closesAt?.toISOString(), '2026-12-02T12:30:00.000Z');
  assert.equal(judge(chained, '2026-12-02T12:45:00Z').opensAt?.toISOString(), '2026-12-03T08:00:00.000Z');
  // A deny starting inside the merged run closes it first.
  assert.equal(
    judge([...chained, deny('0 11 * * *', 1)], '2026-12-02T09:00:00Z').closesAt?.toISOString(),
    '2026-12-02T11:00:00.000Z',
  );
  assert.deepEqual(plain([allow('0 * * * *', 1)], '2026-12-02T09:10:00Z'), {
    open: true,
    why: 'inside allow window "0 * * * *" (1h, UTC), and nothing closes within 366 days',
  });
});

test('WIN-1 only deny windows: open between them; no windows: always open; an impossible schedule: never', () => {
  const nightly = [deny('0 0 * * *', 1)];
  assert.deepEqual(plain(nightly, '2026-12-02T00:30:00Z'), {
    open: false,
    opensAt: '2026-12-02T01:00:00.000Z',
    why: 'inside deny window "0 0 * * *" (1h, UTC) until 2026-12-02T01:00:00.000Z',
  });
  assert.deepEqual(plain(nightly, '2026-12-02T05:00:00Z'), {
    open: true,
    closesAt: '2026-12-03T00:00:00.000Z',
    why: 'outside every deny window; the next starts at 2026-12-03T00:00:00.000Z',
  });
  assert.equal(judge([deny('0 * * * *', 1)], '2026-12-02T05:00:00Z').opensAt, undefined);
  assert.deepEqual(plain([], '2026-12-02T05:00:00Z'), { open: true, why: 'no maintenance windows are set' });
  assert.deepEqual(plain([allow('0 0 30 2 *', 24)], '2026-12-02T05:00:00Z'), {
    open: false,
    why: 'outside every allow window, and nothing opens within 366 days',
  });
  assert.deepEqual(plain([deny('0 0 30 2 *', 24)], '2026-12-02T05:00:00Z'), {
    open: true,
    why: 'outside every deny window, and nothing closes within 366 days',
  });
  assert.equal(next('0 0 30 2 *', 'UTC', '2026-12-02T05:00:00Z'), undefined);
});

test('WIN-1 a window that cannot be judged is refused, naming its schedule', () => {
  assert.throws(
    () => judge([allow('0 25 * * *', 1)], '2026-12-02T05:00:00Z'),
    /"0 25 \* \* \*" does not parse: field 2 \(hour\) "25" is outside 0-23/,
  );
  assert.throws(() => judge([deny('0 1 * * *', 0)], '2026-12-02T05:00:00Z'), /"0 1 \* \* \*" has a duration of 0ms/);
});

test('WIN-1 a schedule that does not parse names the field that is wrong and why', () => {
  const fields = 'a schedule has 5: minute hour day-of-month month day-of-week';
  const cases: readonly [string, string][] = [
    ['0 0 * *', `it has 4 fields; ${fields}`],
    ['', `it has 0 fields; ${fields}`],
    ['0 0 * * * *', `it has 6 fields; ${fields}`],
    ['60 * * * *', 'field 1 (minute) "60" is outside 0-59'],
    ['x * * * *', 'field 1 (minute) "x" is not a number'],
    ['*/0 * * * *', 'field 1 (minute) "*/0" has a step that is not a whole number above 0'],
    ['1/2/3 * * * *', 'field 1 (minute) "1/2/3" has more than one step'],
    ['0 25 * * *', 'field 2 (hour) "25" is outside 0-23'],
    ['0 1-2-3 * * *', 'field 2 (hour) "1-2-3" is not a single range'],
    ['0 0 32 * *', 'field 3 (day-of-month) "32" is outside 1-31'],
    ['0 0 1,,2 * *', 'field 3 (day-of-month) has an empty list item'],
    ['0 0 * 13 *', 'field 4 (month) "13" is outside 1-12'],
    ['0 0 * FOO *', 'field 4 (month) "FOO" is not a number or a name'],
    ['0 0 * * 8', 'field 5 (day-of-week) "8" is outside 0-7'],
    ['0 0 * * MON-FUN', 'field 5 (day-of-week) "FUN" is not a number or a name'],
  ];
  for (const [text, problem] of cases) assert.deepEqual(parseSchedule(text), { ok: false, problem }, text);
  for (const text of ['*/15 9-17 1,15 JAN-MAR mon-fri', '  0 0 * * 7  ', '0 0 1 jan-dec/3 SUN-SAT'])
    assert.equal(parseSchedule(text).ok, true, text);
});

test('WIN-1 lists, ranges, steps and names pick the minutes they say, rounded up to whole minutes', () => {
  assert.equal(next('*/15 * * * *', 'UTC', '2026-12-02T10:07:00Z'), '2026-12-02T10:15:00.000Z');
  assert.equal(next('5,10-12 * * * *', 'UTC', '2026-12-02T10:06:00Z'), '2026-12-02T10:10:00.000Z');
  assert.equal(next('5,10-12 * * * *', 'UTC', '2026-12-02T10:12:30Z'), '2026-12-02T11:05:00.000Z');
  assert.equal(next('0-30/10 9 * * *', 'UTC', '2026-12-02T09:21:00Z'), '2026-12-02T09:30:00.000Z');
  assert.equal(next('0-30/10 9 * * *', 'UTC', '2026-12-02T09:31:00Z'), '2026-12-03T09:00:00.000Z');
  assert.equal(next('30/15 * * * *', 'UTC', '2026-12-02T10:31:00Z'), '2026-12-02T10:45:00.000Z');
  assert.equal(next('30/15 * * * *', 'UTC', '2026-12-02T10:46:00Z'), '2026-12-02T11:30:00.000Z');
  assert.equal(next('0 0 * FEB mon', 'UTC', '2026-12-02T00:00:00Z'), '2027-02-01T00:00:00.000Z');
  assert.equal(next('0 0 1 JAN-DEC/3 *', 'UTC', '2026-11-02T00:00:00Z'), '2027-01-01T00:00:00.000Z');
  for (const sunday of ['0', '7', 'sun', 'SUN'])
    assert.equal(next(`0 0 * * ${sunday}`, 'UTC', '2026-12-02T00:00:00Z'), '2026-12-06T00:00:00.000Z', sunday);
  assert.equal(next('* * * * *', 'UTC', '2026-12-02T10:00:00.000Z'), '2026-12-02T10:00:00.000Z');
  assert.equal(next('* * * * *', 'UTC', '2026-12-02T10:00:00.001Z'), '2026-12-02T10:01:00.000Z');
});

test('WIN-1 a range written high to low wraps past the end of its field, as the schedule pattern of the API accepts it', () => {
  assert.equal(next('0 22-2 * * *', 'UTC', '2026-12-02T03:00:00Z'), '2026-12-02T22:00:00.000Z');
  assert.equal(next('0 22-2 * * *', 'UTC', '2026-12-02T23:30:00Z'), '2026-12-03T00:00:00.000Z');
  assert.equal(next('0 22-2 * * *', 'UTC', '2026-12-03T02:30:00Z'), '2026-12-03T22:00:00.000Z');
  assert.equal(next('0 0 * * FRI-MON', 'UTC', '2026-12-01T12:00:00Z'), '2026-12-04T00:00:00.000Z', 'Tuesday to Friday');
  assert.equal(next('0 0 * * FRI-MON', 'UTC', '2026-12-06T12:00:00Z'), '2026-12-07T00:00:00.000Z', 'Sunday to Monday');
  assert.equal(
    next('0 0 * * FRI-MON', 'UTC', '2026-12-07T12:00:00Z'),
    '2026-12-11T00:00:00.000Z',
    'Monday to Friday: Tuesday to Thursday are out',
  );
  assert.equal(
    next('50-10/10 * * * *', 'UTC', '2026-12-02T10:11:00Z'),
    '2026-12-02T10:50:00.000Z',
    'stepped across the hour: 50, 0, 10',
  );
  assert.equal(next('50-10/10 * * * *', 'UTC', '2026-12-02T10:51:00Z'), '2026-12-02T11:00:00.000Z');
});

test('WIN-1 when both day fields are restricted a day matches either; otherwise both must', () => {
  // Friday 4 December comes before the 13th; both together would wait for Friday 13 August 2027.
  assert.equal(next('0 0 13 * 5', 'UTC', '2026-12-02T12:00:00Z'), '2026-12-04T00:00:00.000Z');
  assert.equal(next('0 0 13 * 5', 'UTC', '2026-12-12T12:00:00Z'), '2026-12-13T00:00:00.000Z');
  assert.equal(next('0 0 13 * *', 'UTC', '2026-12-02T12:00:00Z'), '2026-12-13T00:00:00.000Z');
  assert.equal(next('0 0 * * 5', 'UTC', '2026-12-05T12:00:00Z'), '2026-12-11T00:00:00.000Z');
  assert.equal(next('0 0 * 8 5', 'UTC', '2026-12-02T12:00:00Z'), '2027-08-06T00:00:00.000Z');
});

test('WIN-1 schedules follow the wall clock of their time zone, across DST changes', () => {
  assert.equal(next('0 22 * * *', 'UTC', '2026-12-02T12:00:00Z'), '2026-12-02T22:00:00.000Z');
  assert.equal(next('0 22 * * *', 'Europe/Berlin', '2026-12-02T12:00:00Z'), '2026-12-02T21:00:00.000Z');
  assert.equal(next('0 22 * * *', 'Europe/Berlin', '2026-07-01T00:00:00Z'), '2026-07-01T20:00:00.000Z');
  assert.equal(next('0 22 * * *', 'America/New_York', '2026-12-02T12:00:00Z'), '2026-12-03T03:00:00.000Z');
  // Berlin springs forward 02:00 → 03:00 on 29 March: 02:30 does not happen that day.
  assert.equal(next('30 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z'), '2026-03-30T00:30:00.000Z');
  assert.equal(next('30 3 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z'), '2026-03-29T01:30:00.000Z');
  assert.equal(next('0 1 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z'), '2026-03-29T00:00:00.000Z');
  assert.equal(next('30 2 * * *', 'America/New_York', '2026-03-08T00:00:00Z'), '2026-03-09T06:30:00.000Z');
  assert.equal(next('30 3 * * *', 'America/New_York', '2026-03-08T00:00:00Z'), '2026-03-08T07:30:00.000Z');
  // New York falls back 02:00 → 01:00 on 1 November: 01:30 counts at its first instant only.
  assert.equal(next('30 1 * * *', 'America/New_York', '2026-11-01T00:00:00Z'), '2026-11-01T05:30:00.000Z');
  assert.equal(next('30 1 * * *', 'America/New_York', '2026-11-01T05:31:00Z'), '2026-11-02T06:30:00.000Z');
  assert.equal(next('0 * * * *', 'America/New_York', '2026-11-01T05:01:00Z'), '2026-11-01T07:00:00.000Z');
  const judged = judge([allow('0 1 * * *', 2, 'America/New_York')], '2026-11-01T06:30:00Z');
  assert.equal(judged.closesAt?.toISOString(), '2026-11-01T07:00:00.000Z');
  assert.equal(
    judge([allow('30 2 * * *', 1, 'America/New_York')], '2026-03-08T00:00:00Z').opensAt?.toISOString(),
    '2026-03-09T06:30:00.000Z',
  );
});

test('WIN-1 a time zone is one Intl accepts', () => {
  for (const name of ['UTC', 'Europe/Berlin', 'America/New_York']) assert.equal(isTimeZone(name), true, name);
  for (const name of ['', 'Mars/Olympus', 'Europe/Berlinn']) assert.equal(isTimeZone(name), false, name);
});

test('judging stays cheap: a yearly schedule from mid-year finds the next 1 January, and a year-long open run ends the horizon, in few formatter calls', () => {
  const original = Intl.DateTimeFormat.prototype.formatToParts;
  let calls = 0;
  Intl.DateTimeFormat.prototype.formatToParts = function (this: Intl.DateTimeFormat, date?: Date | number) {
    calls += 1;
    return original.call(this, date);
  };
  try {
    const yearly = [
      allow('0 0 1 1 *', 1),
      allow('0 0 1 1 *', 1, 'Europe/Berlin'),
      allow('0 0 1 1 *', 1, 'America/New_York'),
    ];
    const judged = judge(yearly, '2026-07-01T00:00:00Z');
    assert.equal(judged.open, false);
    assert.equal(judged.opensAt?.toISOString(), '2026-12-31T23:00:00.000Z'); // 1 January in Berlin
    assert.ok(calls < 3000, `${calls} formatter calls`);
    calls = 0;
    assert.equal(next('0 0 30 2 *', 'Europe/Berlin', '2026-07-01T00:00:00Z'), undefined);
    assert.ok(calls > 0 && calls < 2000, `${calls} formatter calls`);
    // Always open for a year: a run of overlapping occurrences is crossed in strides, not minute by minute.
    calls = 0;
    const always = judge([allow('* * * * *', 1), allow('0 3 * * *', 1)], '2026-07-01T00:00:00Z');
    assert.deepEqual([always.open, always.closesAt], [true, undefined]);
    assert.ok(calls < 40_000, `${calls} formatter calls`);
  } finally {
    Intl.DateTimeFormat.prototype.formatToParts = original;
  }
});

test('WIN-1 every schedule the API server accepts (spec.maintenance.windows[].schedule) is one the control plane can judge', () => {
  fc.assert(
    fc.property(fc.stringMatching(SCHEDULE_PATTERN), (text) => {
      const parsed = parseSchedule(text);
      assert.ok(parsed.ok, `${JSON.stringify(text)}: ${parsed.ok ? '' : parsed.problem}`);
    }),
    { numRuns: 2000 },
  );
});
