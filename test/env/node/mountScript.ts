// Builds the shell script that runs one container in its own mount namespace (started with
// `unshare -m --propagation private`). The container sees this machine's file system through
// an overlay whose writable layer lives in the Pod's directory, so creating a mount point
// (/var/run/secrets/…, /dev/termination-log, /data) or writing outside a volume never changes
// the machine; its volumes are bound at their mount paths inside that view, and the command
// runs chrooted into it. Nothing it mounts is seen outside the namespace.
import { lstatSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';

export interface BindMount {
  readonly source: string;
  readonly target: string;
  readonly readOnly: boolean;
}

export class MountPathError extends Error {
  override readonly name = 'MountPathError';
}

const q = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/** Mount points of this machine, unescaped, without duplicates. */
function hostMountPoints(): string[] {
  const lines = readFileSync('/proc/self/mountinfo', 'utf8').split('\n');
  const points = lines
    .map((l) => l.split(' ')[4] ?? '')
    .filter(Boolean)
    .map((p) => p.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))));
  return [...new Set(points)];
}

/** Mounts below / that are not below another one; an overlay of / does not show them. */
export function topSubmounts(points: readonly string[]): string[] {
  const below = points.filter((p) => p !== '/');
  return below.filter((p) => !below.some((o) => p.startsWith(`${o}/`)));
}

function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where `path` lands inside the container's root: symlinks are followed as the chrooted
 * process would follow them (an absolute link like /var/run → /run stays inside the root).
 */
export function resolveInRoot(path: string): string {
  const rest = path.split('/').filter(Boolean);
  let current = '/';
  for (let hops = 0; rest.length > 0;) {
    const next = posix.join(current, rest.shift() ?? '');
    const link = linkTarget(next);
    if (link === undefined) {
      current = next;
      continue;
    }
    if (++hops > 40) throw new MountPathError(`mount path ${path}: too many symbolic links`);
    rest.unshift(...link.split('/').filter(Boolean));
    current = link.startsWith('/') ? '/' : current;
  }
  return current;
}

// A fresh /dev, as container runtimes give one: a tmpfs with the usual devices bound in, so
// a mount point like /dev/termination-log is created there and not in the machine's /dev.
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];

function devLines(root: string): string[] {
  const dev = join(root, 'dev');
  return [
    `mkdir -p ${q(dev)} && mount -c -t tmpfs -o mode=755,size=64k tmpfs ${q(dev)}`,
    ...DEVICES.map((d) => `: > ${q(join(dev, d))} && mount -c --bind /dev/${d} ${q(join(dev, d))}`),
    ...['pts', 'shm'].map((d) => `mkdir -p ${q(join(dev, d))} && mount -c --rbind /dev/${d} ${q(join(dev, d))}`),
    `ln -s /proc/self/fd ${q(join(dev, 'fd'))}`,
    ...['stdin', 'stdout', 'stderr'].map((d, i) => `ln -s /proc/self/fd/${i} ${q(join(dev, d))}`),
    `ln -s pts/ptmx ${q(join(dev, 'ptmx'))}`,
  ];
}

function bindLines(m: BindMount, root: string, shared: readonly string[]): string[] {
  const resolved = resolveInRoot(m.target);
  const under = shared.find((s) => resolved === s || resolved.startsWith(`${s}/`));
  if (under)
    throw new MountPathError(
      `mount path ${m.target}: the process node shares ${under} with its machine and does not mount into it`,
    );
  const target = join(root, resolved);
  const isDir = statSync(m.source).isDirectory();
  return [
    isDir ? `mkdir -p ${q(target)}` : `mkdir -p ${q(dirname(target))}; [ -e ${q(target)} ] || : > ${q(target)}`,
    `mount -c --bind ${q(m.source)} ${q(target)}`,
    ...(m.readOnly ? [`mount -c -o remount,bind,ro ${q(target)}`] : []),
  ];
}

/** The directories the script expects: the root's mount point and the overlay's layers. */
export function rootDirs(layerDir: string): { root: string; dirs: string[] } {
  const root = join(layerDir, 'root');
  return { root, dirs: [root, ...['lower', 'upper', 'work'].map((d) => join(layerDir, d))] };
}

/** The script; the command and its arguments are its positional parameters. */
export function mountScript(layerDir: string, mounts: readonly BindMount[], workingDir: string | undefined): string {
  const { root } = rootDirs(layerDir);
  const ordered = [...mounts].sort((a, b) => a.target.split('/').length - b.target.split('/').length);
  const shared = topSubmounts(hostMountPoints()).filter((s) => s !== '/dev');
  return [
    'set -e',
    `mount -c --bind / ${q(join(layerDir, 'lower'))}`,
    `mount -c -t overlay overlay -o lowerdir=${join(layerDir, 'lower')},upperdir=${join(layerDir, 'upper')},workdir=${join(layerDir, 'work')} ${q(root)}`,
    // /proc, /sys and the like, as the machine has them; /dev of its own.
    ...shared.map((s) => `mkdir -p ${q(join(root, s))} && mount -c --rbind ${q(s)} ${q(join(root, s))} || true`),
    ...devLines(root),
    ...ordered.flatMap((m) => bindLines(m, root, [...shared, '/dev/pts', '/dev/shm'])),
    `exec chroot ${q(root)} env -C ${q(workingDir ?? '/')} -- "$@"`,
    '',
  ].join('\n');
}
