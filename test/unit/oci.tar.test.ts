// The tar reader returns a bundle's regular files by relative path: ustar, pax and GNU long
// names, `./` prefixes and directories as real tar writers produce them, and it refuses
// archives whose paths would leave the bundle or whose bytes are not a whole tar.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { TarError, normalisedPath, readTar } from '../../shared/oci/tar.ts';
import { archive, entry, paxRecord } from '../helpers/tarFixture.ts';

const run = promisify(execFile);
const text = (bytes: Uint8Array | undefined): string => new TextDecoder().decode(bytes);

test('regular files come out by relative path; "./" prefixes are stripped and directories skipped', () => {
  const files = readTar(
    archive(
      entry({ name: './', type: '5' }),
      entry({ name: './recipe.yaml', data: 'kind: RecipeResult\n' }),
      entry({ name: './gpu-operator/', type: '5' }),
      entry({ name: './gpu-operator/values.yaml', data: 'a: 1\n' }),
      entry({ name: 'empty.txt' }),
      entry({ name: 'link', type: '2' }),
    ),
  );
  assert.deepEqual([...files.keys()], ['recipe.yaml', 'gpu-operator/values.yaml', 'empty.txt']);
  assert.equal(text(files.get('gpu-operator/values.yaml')), 'a: 1\n');
  assert.equal(files.get('empty.txt')?.length, 0);
});

test('a file whose data spans several blocks is read whole, and the next entry after it', () => {
  const big = 'x'.repeat(1300);
  const files = readTar(archive(entry({ name: 'big', data: big }), entry({ name: 'after', data: 'next' })));
  assert.equal(text(files.get('big')), big);
  assert.equal(text(files.get('after')), 'next');
});

test('long names: the ustar prefix field, a GNU "L" entry and a pax "x" path each name the next file', () => {
  const deep = `${'d'.repeat(70)}/${'e'.repeat(70)}`;
  const longName = `${'long/'.repeat(40)}values.yaml`;
  const paxName = `./${'pax/'.repeat(40)}values.yaml`;
  const files = readTar(
    archive(
      entry({ name: 'values.yaml', prefix: deep, data: 'prefix' }),
      entry({ name: '././@LongLink', type: 'L', data: `${longName}\0` }),
      entry({ name: 'truncated-name', data: 'gnu' }),
      entry({ name: 'PaxHeaders/x', type: 'x', data: paxRecord('path', paxName) + paxRecord('mtime', '0') }),
      entry({ name: 'truncated-too', data: 'pax' }),
      entry({ name: 'plain', data: 'plain' }),
    ),
  );
  assert.equal(text(files.get(`${deep}/values.yaml`)), 'prefix');
  assert.equal(text(files.get(longName)), 'gnu');
  assert.equal(text(files.get(paxName.slice(2))), 'pax');
  assert.equal(text(files.get('plain')), 'plain', 'a long name applies to the next entry only');
  assert.equal(files.size, 4);
});

test('paths that climb out with "..", or are absolute, are refused', () => {
  assert.throws(
    () => readTar(archive(entry({ name: 'a/../../etc/passwd', data: 'x' }))),
    (err: unknown) => err instanceof TarError && /climbs out/.test(err.message),
  );
  assert.throws(() => readTar(archive(entry({ name: '/etc/passwd', data: 'x' }))), /absolute path/);
  assert.throws(
    () => readTar(archive(entry({ name: '././@LongLink', type: 'L', data: '../x\0' }), entry({ name: 'x', data: '' }))),
    /climbs out/,
  );
  assert.equal(normalisedPath('./a//b/./c'), 'a/b/c');
  assert.equal(normalisedPath('a/b/'), 'a/b');
  assert.throws(() => normalisedPath('C:\\Windows'), /absolute path/);
});

test('a truncated archive, a corrupt header, a duplicate file or bytes that are no tar are refused', () => {
  const whole = archive(entry({ name: 'a', data: 'y'.repeat(2000) }));
  assert.throws(() => readTar(whole.subarray(0, 1024)), /cut short/);
  assert.throws(() => readTar(whole.subarray(0, 512 * 5)), /ends without its end-of-archive blocks/);
  assert.throws(() => readTar(archive(entry({ name: 'a', data: 'x', badChecksum: true }))), /checksum does not match/);
  assert.throws(
    () => readTar(archive(entry({ name: 'a', data: '1' }), entry({ name: './a', data: '2' }))),
    /appears twice/,
  );
  assert.throws(() => readTar(new TextEncoder().encode('not a tar at all'.repeat(64))), TarError);
  assert.throws(
    () => readTar(archive(entry({ name: 'p', type: 'x', data: '99 path=x\n' }), entry({ name: 'q' }))),
    /pax header record is malformed/,
  );
  assert.deepEqual(readTar(archive()), new Map());
});

test('archives written by GNU tar in its gnu and pax formats read back byte for byte', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tar-'));
  try {
    const deepName = `${'component-with-a-long-name/'.repeat(6)}manifests/values.yaml`;
    const content = new Map([
      ['recipe.yaml', 'kind: RecipeResult\n'],
      [deepName, 'deep: true\n'],
    ]);
    for (const [path, body] of content) {
      await mkdir(dirname(join(dir, 'src', path)), { recursive: true });
      await writeFile(join(dir, 'src', path), body);
    }
    for (const format of ['gnu', 'pax']) {
      await run('tar', [`--format=${format}`, '-C', join(dir, 'src'), '-cf', join(dir, `${format}.tar`), '.']);
      const files = readTar(await readFile(join(dir, `${format}.tar`)));
      assert.deepEqual(new Map([...files].map(([k, v]) => [k, text(v)])), content, format);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
