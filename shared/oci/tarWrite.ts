// A tar writer for the archives the control plane makes itself (a Helm chart of a component's
// manifests). It is deterministic: the same files give the same bytes, with paths in byte order
// and owner, mode and time fixed, so an archive already in the registry is recognised by its
// digest and not pushed again. Plain ustar; a path too long for it is refused, not truncated.

const BLOCK = 512;
const NAME_MAX = 100;
const PREFIX_MAX = 155;
const encoder = new TextEncoder();

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function put(block: Uint8Array, offset: number, value: string): void {
  block.set(encoder.encode(value), offset);
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** ustar keeps long paths as prefix + "/" + name, split at a slash. */
function splitPath(path: string): { name: string; prefix: string } {
  if (encoder.encode(path).length <= NAME_MAX) return { name: path, prefix: '' };
  for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (encoder.encode(prefix).length <= PREFIX_MAX && encoder.encode(name).length <= NAME_MAX) return { name, prefix };
  }
  throw new Error(`tar: the path "${path}" is too long for a ustar header`);
}

function header(path: string, size: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const { name, prefix } = splitPath(path);
  put(block, 0, name);
  put(block, 100, octal(0o644, 8));
  put(block, 108, octal(0, 8));
  put(block, 116, octal(0, 8));
  put(block, 124, octal(size, 12));
  put(block, 136, octal(0, 12));
  put(block, 156, '0');
  put(block, 257, 'ustar\u000000');
  put(block, 345, prefix);
  put(block, 148, '        ');
  const sum = block.reduce((a, b) => a + b, 0);
  put(block, 148, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

/** A tar of regular files, by relative path; ends with the two zero blocks tar readers expect. */
export function writeTar(files: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const path of [...files.keys()].sort(byCodeUnit)) {
    const data = files.get(path) ?? new Uint8Array();
    parts.push(header(path, data.length), data, new Uint8Array((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
  parts.push(new Uint8Array(2 * BLOCK));
  return Buffer.concat(parts);
}
