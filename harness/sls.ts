// Runs `serverless package` offline, with no AWS credentials, into a directory.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { withLock } from './pidLock.ts';

const run = promisify(execFile);
export const ROOT = new URL('../', import.meta.url).pathname;

/** Example deployment parameters; packaging needs values, not a reachable cluster. */
export const EXAMPLE_PARAMS = {
  eksClusterName: 'gpu-prod',
  eksEndpoint: 'https://EXAMPLE0123456789.gr7.us-east-1.eks.amazonaws.com',
  eksCaData: Buffer.from('-----BEGIN CERTIFICATE-----\nexample\n-----END CERTIFICATE-----\n').toString('base64'),
} as const;

export async function slsPackage(dir: string, stage = 'ci'): Promise<void> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
  };
  const params = Object.entries(EXAMPLE_PARAMS).map(([k, v]) => `--param=${k}=${v}`);
  // serverless-esbuild builds in the repository's own .esbuild folder: two packagings at once
  // (test files run side by side) would overwrite each other's bundles.
  await withLock(join(ROOT, 'node_modules/.aicr-sls-package.lock'), () =>
    run(join(ROOT, 'node_modules/.bin/sls'), ['package', '--stage', stage, '--package', dir, ...params], {
      cwd: ROOT,
      env,
    }),
  );
}
