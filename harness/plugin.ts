// Runs the kubectl plugin as a person would: the real kubectl of the test environment finds
// bin/kubectl-aicr on PATH, with the test cluster's kubeconfig and, for a named user, --as.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { testEnv } from './env.ts';

const BIN = fileURLToPath(new URL('../bin', import.meta.url));

export interface PluginRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A person's shell environment: the test kubectl, and the plugin beside it on PATH. */
export function personEnv(): NodeJS.ProcessEnv {
  const env = testEnv();
  return {
    ...process.env,
    PATH: `${BIN}:${env.TESTENV_BIN}:${process.env['PATH'] ?? ''}`,
    KUBECTL: `${env.TESTENV_BIN}/kubectl`,
  };
}

/** Runs a program to its end; never rejects on a non-zero exit. */
export function runCaptured(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<PluginRun> {
  return new Promise((resolve) => {
    execFile(file, args, { env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err
        ? typeof (err as { code?: unknown }).code === 'number'
          ? (err as { code: number }).code
          : 1
        : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `kubectl aicr <args> --kubeconfig <test cluster> [--as <user>]`; never rejects on a non-zero exit. */
export function kubectlAicr(args: readonly string[], as?: string): Promise<PluginRun> {
  const env = testEnv();
  const argv = ['aicr', ...args, '--kubeconfig', env.KUBECONFIG, ...(as ? ['--as', as] : [])];
  return runCaptured(`${env.TESTENV_BIN}/kubectl`, argv, personEnv());
}
