// Builds small tar archives block by block, so tests can hand the tar reader exactly the
// headers they mean: ustar prefixes, pax and GNU long-name entries, broken checksums.
const BLOCK = 512;

export interface EntrySpec {
  readonly name: string;
  /** '0' regular file (default), '5' directory, 'x' pax header, 'L' GNU long name, '2' symlink. */
  readonly type?: string;
  readonly data?: Uint8Array | string;
  /** The ustar prefix field (joined to the name with a slash). */
  readonly prefix?: string;
  /** Spoil the header checksum. */
  readonly badChecksum?: boolean;
}

function put(block: Uint8Array, offset: number, value: string): void {
  block.set(new TextEncoder().encode(value), offset);
}

function octalField(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(spec: EntrySpec, size: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  put(block, 0, spec.name.slice(0, 100));
  put(block, 100, octalField(0o644, 8));
  put(block, 108, octalField(0, 8));
  put(block, 116, octalField(0, 8));
  put(block, 124, octalField(size, 12));
  put(block, 136, octalField(0, 12));
  put(block, 156, spec.type ?? '0');
  put(block, 257, 'ustar\u000000');
  if (spec.prefix !== undefined) put(block, 345, spec.prefix);
  put(block, 148, '        ');
  const sum = block.reduce((a, b) => a + b, 0) + (spec.badChecksum ? 1 : 0);
  put(block, 148, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

const bytesOf = (data: Uint8Array | string | undefined): Uint8Array =>
  typeof data === 'string' ? new TextEncoder().encode(data) : (data ?? new Uint8Array());

/** One entry: its header and its data padded to whole blocks. */
export function entry(spec: EntrySpec): Uint8Array {
  const data = bytesOf(spec.data);
  const out = new Uint8Array(BLOCK + Math.ceil(data.length / BLOCK) * BLOCK);
  out.set(header(spec, data.length), 0);
  out.set(data, BLOCK);
  return out;
}

/** A pax record `<length> <key>=<value>\n`, whose length counts itself. */
export function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = body.length + 1;
  while (String(length).length + body.length !== length) length = String(length).length + body.length;
  return `${length}${body}`;
}

/** The entries followed by the two zero blocks that end an archive. */
export function archive(...entries: Uint8Array[]): Uint8Array {
  const total = entries.reduce((n, e) => n + e.length, 0) + 2 * BLOCK;
  const out = new Uint8Array(total);
  let at = 0;
  for (const e of entries) {
    out.set(e, at);
    at += e.length;
  }
  return out;
}
