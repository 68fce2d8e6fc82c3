// spec.components → `aicr bundle --set component:path=value`. AICR v0.11.1 takes scalars only,
// so nested values maps flatten to dotted paths; anything --set cannot carry is a spec problem
// named by its path. A chart version override is not AICR's to apply: plans apply it.
import type { ClusterRuntimeSpec } from '../api/clusterRuntime.ts';
import type { SpecProblem } from '../api/specProblem.ts';

export interface Sets {
  readonly args: readonly string[];
  readonly problems: readonly SpecProblem[];
}

const UNSAFE_KEY = /[.=:,\s]/;

/**
 * The longest `component:path=value` argument that reaches AICR, in bytes. Linux refuses any
 * single argument of 128 KiB or more (MAX_ARG_STRLEN counts the terminating NUL), and the
 * API server accepts far larger values: without this bound the render Pod could not start
 * (E2BIG) and the runtime would read "running" until actionTimeout.
 */
export const MAX_SET_ARGUMENT_BYTES = 128 * 1024 - 1;

interface Found {
  readonly paths: string[];
  readonly problems: SpecProblem[];
}

function flatten(prefix: string, field: string, value: unknown, found: Found): void {
  const { paths: out, problems } = found;
  if (value === null || value === undefined) {
    problems.push({ field, message: 'a null value cannot be set by AICR; remove the key to keep the recipe value' });
  } else if (Array.isArray(value)) {
    problems.push({
      field,
      message: 'a list cannot be set by AICR v0.11.1 (scalars only); set each scalar it holds by its own key instead',
    });
  } else if (typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (UNSAFE_KEY.test(key) || key === '') {
        problems.push({
          field: `${field}.${key}`,
          message: "a key with '.', '=', ':', ',' or a space cannot be set through AICR",
        });
        continue;
      }
      flatten(prefix ? `${prefix}.${key}` : key, `${field}.${key}`, inner, found);
    }
  } else if (typeof value === 'string' && (value === '' || value.includes(','))) {
    problems.push({ field, message: "an empty string or one with ',' cannot be set through AICR" });
  } else {
    out.push(`${prefix}=${String(value)}`);
  }
}

/** A problem for each argument too long for one command-line argument, named by its values path. */
function tooLong(component: string, field: string, paths: readonly string[]): SpecProblem[] {
  const problems: SpecProblem[] = [];
  for (const p of paths) {
    const bytes = Buffer.byteLength(`${component}:${p}`, 'utf8');
    if (bytes <= MAX_SET_ARGUMENT_BYTES) continue;
    problems.push({
      field: `${field}.${p.slice(0, p.indexOf('='))}`,
      message:
        `too large for one command-line argument: its --set argument is ${String(bytes)} bytes, ` +
        `the limit is ${String(MAX_SET_ARGUMENT_BYTES)} bytes (128 KiB); AICR v0.11.1 takes overrides only as ` +
        '--set, so shorten the value',
    });
  }
  return problems;
}

/** The --set arguments for the components' overrides, in a stable order. */
export function overrideSets(components: ClusterRuntimeSpec['components']): Sets {
  const args: string[] = [];
  const problems: SpecProblem[] = [];
  for (const name of Object.keys(components ?? {}).sort()) {
    const override = components?.[name];
    if (!override) continue;
    if (override.enabled !== undefined) args.push(`${name}:enabled=${String(override.enabled)}`);
    const paths: string[] = [];
    const field = `spec.components.${name}.values`;
    flatten('', field, override.values ?? {}, { paths, problems });
    problems.push(...tooLong(name, field, paths));
    args.push(...paths.sort().map((p) => `${name}:${p}`));
  }
  return { args: args.flatMap((a) => ['--set', a]), problems };
}
