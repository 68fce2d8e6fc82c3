// Runs a command exactly as the runbook prints it: through bash, with the test cluster's
// kubeconfig in KUBECONFIG and the real kubectl and the kubectl-aicr plugin on PATH, so quoting,
// jsonpath escapes and `$(date +%s)` behave as they do in a person's shell.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { testEnv } from './env.ts';
import type { PluginRun } from './plugin.ts';

const BIN = fileURLToPath(new URL('../../bin', import.meta.url));

export function runbook(command: string): Promise<PluginRun> {
  const env = testEnv();
  const PATH = `${BIN}:${env.TESTENV_BIN}:${process.env['PATH'] ?? ''}`;
  const vars = { ...process.env, PATH, KUBECONFIG: env.KUBECONFIG, KUBECTL: `${env.TESTENV_BIN}/kubectl` };
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { env: vars }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs it and fails the test, with the command and its error output, unless it exits 0. */
export async function runbookOk(command: string): Promise<string> {
  const r = await runbook(command);
  if (r.code !== 0) throw new Error(`the runbook command failed (exit ${r.code}): ${command}\n${r.stderr}`);
  return r.stdout;
}
