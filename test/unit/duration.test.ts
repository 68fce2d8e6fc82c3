// One duration grammar: the spec's subset reads the same through the one parser as through the
// whole grammar the configuration takes, and each refuses what it should.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { durationSeconds, formatDuration, isDuration, parseDuration } from '../../shared/api/duration.ts';

test('the spec subset and the whole grammar agree on every value both accept', () => {
  for (const [text, ms] of [
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['1h30m', 5_400_000],
    ['168h', 604_800_000],
    ['1h2m3s', 3_723_000],
  ] as const) {
    assert.equal(parseDuration(text), ms, text);
    assert.equal(durationSeconds(text), ms / 1000, text);
    assert.equal(parseDuration(formatDuration(ms)), ms, `${text} spelt back`);
  }
});

test("milliseconds and any order are the configuration's; the spec takes h, m, s in order, six digits each, and never the empty string", () => {
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('30s1m'), 90_000);
  for (const text of ['500ms', '30s1m', '1234567s', '']) assert.equal(isDuration(text), false, text);
  for (const text of ['', '1d', '1.5h', 'h', '-1s']) assert.equal(parseDuration(text), undefined, text);
});
