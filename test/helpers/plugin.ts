// Runs the kubectl plugin as a person would: the real kubectl of the test environment finds
// bin/kubectl-aicr on PATH, with the test cluster's kubeconfig and, for a named user, --as.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { testEnv } from './env.ts';

const BIN = fileURLToPath(new URL('../../bin', import.meta.url));

export interface PluginRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `kubectl aicr <args> --kubeconfig <test cluster> [--as <user>]`; never rejects on a non-zero exit. */
export function kubectlAicr(args: readonly string[], as?: string): Promise<PluginRun> {
  const env = testEnv();
  const argv = ['aicr', ...args, '--kubeconfig', env.KUBECONFIG, ...(as ? ['--as', as] : [])];
  const PATH = `${BIN}:${env.TESTENV_BIN}:${process.env['PATH'] ?? ''}`;
  return new Promise((resolve) => {
    execFile(`${env.TESTENV_BIN}/kubectl`, argv, { env: { ...process.env, PATH, KUBECTL: `${env.TESTENV_BIN}/kubectl` } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
