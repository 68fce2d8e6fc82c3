// A bounded memory forgets its oldest entry first, and only once it holds more than it keeps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forgetOldest } from '../../shared/boundedMemory.ts';

test('the oldest entry goes first, and only past the bound', () => {
  const seen = new Set(['a', 'b']);
  forgetOldest(seen, 2);
  assert.deepEqual([...seen], ['a', 'b']);
  seen.add('c');
  forgetOldest(seen, 2);
  assert.deepEqual([...seen], ['b', 'c']);
  const looks = new Map([
    ['x', 1],
    ['y', 2],
  ]);
  looks.delete('x');
  looks.set('x', 3);
  looks.set('z', 4);
  forgetOldest(looks, 2);
  assert.deepEqual([...looks.keys()], ['x', 'z'], 'an entry set again counts from then');
});
