import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeWorkItem, encodeWorkItem } from '../../shared/queue/workItem.ts';
import { MalformedMessageError } from '../../shared/errors.ts';

test('a well-formed work item round-trips', () => {
  const item = { v: 1 as const, step: 'resolve', runtime: { name: 'cluster', uid: 'u-1' }, cause: 'ADDED', attempt: 3 };
  assert.deepEqual(decodeWorkItem(encodeWorkItem(item)), item);
});

test('a work item without an attempt number is a first attempt', () => {
  const item = { v: 1 as const, step: 'resolve', runtime: { name: 'cluster', uid: 'u-1' }, cause: 'ADDED' };
  assert.equal(decodeWorkItem(encodeWorkItem(item)).attempt, 1);
});

test('a malformed body names the field that failed', () => {
  const cases: [string, string][] = [
    ['not json', 'body'],
    ['{"v":1,"step":"Explode!","runtime":{"name":"cluster","uid":"u"},"cause":"x"}', 'step'],
    ['{"v":1,"step":"resolve","runtime":{"name":"cluster","uid":"u"},"cause":"x","attempt":0}', 'attempt'],
    ['{"v":1,"step":"resolve","runtime":{"name":"cluster"},"cause":"x"}', 'runtime.uid'],
    ['{"v":2,"step":"resolve","runtime":{"name":"cluster","uid":"u"},"cause":"x"}', 'v'],
  ];
  for (const [body, field] of cases) {
    assert.throws(
      () => decodeWorkItem(body),
      (err: unknown) => err instanceof MalformedMessageError && err.field === field,
      body,
    );
  }
});
