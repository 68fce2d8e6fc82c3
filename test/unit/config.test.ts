import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../shared/config.ts';

const good = { AICR_RESOLVE_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/q.fifo', AICR_DELAY_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/d' };

test('configuration parses with defaults', () => {
  assert.equal(loadConfig(good).LOG_LEVEL, 'info');
});

test('a misspelt setting fails start-up naming it', () => {
  assert.throws(() => loadConfig({ ...good, AICR_RESOLVE_QUEUE_ULR: 'x' }), (e: unknown) => e instanceof ConfigError && /AICR_RESOLVE_QUEUE_ULR/.test(e.message));
});

test('a missing or malformed setting names the key', () => {
  assert.throws(() => loadConfig({ AICR_DELAY_QUEUE_URL: good.AICR_DELAY_QUEUE_URL }), /AICR_RESOLVE_QUEUE_URL/);
  assert.throws(() => loadConfig({ ...good, LOG_LEVEL: 'loud' }), /LOG_LEVEL/);
});
