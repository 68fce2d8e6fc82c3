// A component's raw manifests (`<component>/manifests/` in the bundle) travel as a Helm chart
// of their own in the cluster's registry. Its name and version are decided here, in one place,
// so the plan that names the chart and the step that packages it always agree.
import { createHash } from 'node:crypto';

export const MANIFESTS_DIR = 'manifests';

export function manifestsChartName(component: string): string {
  return `${component}-manifests`;
}

/** Byte order, not locale order: the version must not depend on where it is computed. */
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * `0.0.0-m` and the first 12 hex digits of a sha256 over the files, taken in path order, each
 * as its relative path, a NUL, its length in decimal, a NUL, then its bytes (the lengths keep
 * one set of files from hashing like another). The `m` keeps the pre-release identifier
 * alphanumeric: twelve hex digits that happen to be all digits with a leading zero would not
 * be valid SemVer, and Helm refuses such chart versions.
 */
export function manifestsChartVersion(files: ReadonlyMap<string, Uint8Array>): string {
  const hash = createHash('sha256');
  for (const path of [...files.keys()].sort(byCodeUnit)) {
    const bytes = files.get(path) ?? new Uint8Array();
    hash.update(`${path}\0${bytes.length}\0`, 'utf8');
    hash.update(bytes);
  }
  return `0.0.0-m${hash.digest('hex').slice(0, 12)}`;
}

/** The files under `<component>/manifests/`, by path relative to that folder. */
export function manifestFilesOf(files: ReadonlyMap<string, Uint8Array>, component: string): Map<string, Uint8Array> {
  const prefix = `${component}/${MANIFESTS_DIR}/`;
  const out = new Map<string, Uint8Array>();
  for (const [path, bytes] of files) {
    if (path.startsWith(prefix)) out.set(path.slice(prefix.length), bytes);
  }
  return out;
}
