// A small reader for the tar archives bundles travel in: ustar headers, pax `x` headers and
// GNU `L` long names, which is what Go's archive/tar writes. Only regular files come out;
// directories, links and devices are skipped. Paths are made relative and may not escape the
// archive's root, so no caller ever sees `/etc/…` or `../…`.

/** The archive is not a tar we read; the message names the entry and the fault. */
export class TarError extends Error {
  override readonly name = 'TarError';
}

const BLOCK = 512;
const REGULAR = new Set(['0', '\0', '7']);
const decoder = new TextDecoder('utf-8', { fatal: false });

/** What the entry header before a file says about it (pax `x` or GNU `L`). */
interface Pending {
  path?: string;
  size?: number;
}

function text(block: Uint8Array, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return decoder.decode(end < 0 ? field : field.subarray(0, end));
}

function octal(block: Uint8Array, offset: number, length: number, field: string): number {
  const digits = text(block, offset, length).trim();
  if (!/^[0-7]*$/.test(digits)) throw new TarError(`a header's ${field} is not an octal number`);
  return digits === '' ? 0 : parseInt(digits, 8);
}

/** The header checksum: the sum of its bytes with the checksum field itself read as spaces. */
function checksumHolds(block: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
  return sum === octal(block, 148, 8, 'checksum');
}

const isZeroBlock = (block: Uint8Array): boolean => block.every((b) => b === 0);

/** Pax records are `<length> <key>=<value>\n`, the length counting the whole record. */
function paxRecords(data: Uint8Array): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const length = space < 0 ? NaN : Number(decoder.decode(data.subarray(at, space)));
    if (!Number.isInteger(length) || length <= space - at || at + length > data.length)
      throw new TarError('a pax header record is malformed');
    const record = decoder.decode(data.subarray(space + 1, at + length - 1));
    const eq = record.indexOf('=');
    if (eq > 0) records.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return records;
}

function paxPending(data: Uint8Array): Pending {
  const records = paxRecords(data);
  const pending: Pending = {};
  const path = records.get('path');
  const size = records.get('size');
  if (path !== undefined) pending.path = path;
  if (size !== undefined) {
    if (!/^[0-9]+$/.test(size)) throw new TarError('a pax header gives a size that is not a number');
    pending.size = Number(size);
  }
  return pending;
}

/** Relative, `/`-separated, no `.` segments; refuses what would land outside the archive's root. */
export function normalisedPath(raw: string): string {
  const quoted = JSON.stringify(raw.slice(0, 200));
  if (raw.startsWith('/') || /^[a-zA-Z]:[\\/]/.test(raw)) throw new TarError(`entry ${quoted} has an absolute path`);
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw new TarError(`entry ${quoted} climbs out of the archive with ".."`);
  return segments.join('/');
}

interface Header {
  readonly path: string;
  readonly type: string;
  readonly size: number;
}

function readHeader(block: Uint8Array, pending: Pending): Header {
  if (!checksumHolds(block))
    throw new TarError('a header checksum does not match: the archive is corrupt or not a tar');
  const ustar = text(block, 257, 6) === 'ustar';
  const prefix = ustar ? text(block, 345, 155) : '';
  const name = text(block, 0, 100);
  const path = pending.path ?? (prefix === '' ? name : `${prefix}/${name}`);
  return { path, type: String.fromCharCode(block[156] ?? 0), size: pending.size ?? octal(block, 124, 12, 'size') };
}

function addFile(files: Map<string, Uint8Array>, header: Header, data: Uint8Array): void {
  const path = normalisedPath(header.path);
  if (path === '') throw new TarError('a regular file entry has an empty path');
  if (files.has(path)) throw new TarError(`entry ${JSON.stringify(path)} appears twice`);
  files.set(path, data);
}

/** What one header means for the entries after it: the next entry's path or size, or nothing. */
function nextPending(header: Header, data: Uint8Array): Pending {
  if (header.type === 'x') return paxPending(data);
  if (header.type === 'L') return { path: text(data, 0, data.length) };
  return {};
}

/** The archive's regular files by normalised relative path. */
export function readTar(archive: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  let pending: Pending = {};
  for (let at = 0; at + BLOCK <= archive.length;) {
    const block = archive.subarray(at, at + BLOCK);
    if (isZeroBlock(block)) return files;
    const header = readHeader(block, pending);
    const start = at + BLOCK;
    if (start + header.size > archive.length)
      throw new TarError(`entry ${JSON.stringify(header.path.slice(0, 200))} is cut short: the archive is truncated`);
    // A plain view, not a Buffer: callers compare and hash bytes whatever gunzip returned.
    const data = new Uint8Array(archive.buffer, archive.byteOffset + start, header.size);
    if (REGULAR.has(header.type)) addFile(files, header, data);
    // pax and GNU headers describe the next entry only; a global pax header (`g`) is ignored.
    pending = nextPending(header, data);
    at = start + Math.ceil(header.size / BLOCK) * BLOCK;
  }
  throw new TarError('the archive ends without its end-of-archive blocks: it is truncated or not a tar');
}
