// Messages fit the API's 32,768-byte limit on a condition message, keep their start, and say
// how much was cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MESSAGE_LIMIT_BYTES, byteLength, fitMessage } from '../../shared/status/message.ts';

test('a message at the limit is kept whole', () => {
  const exact = 'a'.repeat(MESSAGE_LIMIT_BYTES);
  assert.equal(fitMessage(exact), exact);
});

test('a message one byte over the limit is cut to fit, keeps its start and says how much was cut', () => {
  const over = `spec.components: ${'k'.repeat(MESSAGE_LIMIT_BYTES)}`;
  const fit = fitMessage(over);
  assert.ok(byteLength(fit) <= MESSAGE_LIMIT_BYTES, `${byteLength(fit)} bytes`);
  assert.ok(fit.startsWith('spec.components: kkk'));
  const cut = Number(/\((\d+) more bytes cut\)$/.exec(fit)?.[1]);
  assert.equal(byteLength(fit.slice(0, fit.lastIndexOf(' … ('))) + cut, byteLength(over), 'kept plus cut is the whole');
});

test('multi-byte text is cut on a character boundary', () => {
  const text = '€'.repeat(20_000);
  const fit = fitMessage(text);
  assert.ok(byteLength(fit) <= MESSAGE_LIMIT_BYTES);
  assert.ok(!fit.includes('\uFFFD'));
  assert.match(fit, /^€+ … \(\d+ more bytes cut\)$/);
});
