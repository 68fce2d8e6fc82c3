// The `export NAME=value` lines test/env/up.sh writes to an environment's `env` file.
import { readFileSync } from 'node:fs';

/** Each variable the file exports, its value as written (a `$PATH` in it not expanded). */
export function readEnvFile(path: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^export ([A-Z0-9_]+)=(.*)$/.exec(line);
    if (m?.[1] && m[2] !== undefined) vars[m[1]] = m[2];
  }
  return vars;
}
