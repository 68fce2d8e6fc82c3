// Runs a command exactly as the runbook prints it: through bash, with the test cluster's
// kubeconfig in KUBECONFIG and the real kubectl and the kubectl-aicr plugin on PATH, so quoting,
// jsonpath escapes and `$(date +%s)` behave as they do in a person's shell.
import { testEnv } from '../../harness/env.ts';
import { type PluginRun, personEnv, runCaptured } from '../../harness/plugin.ts';

export function runbook(command: string): Promise<PluginRun> {
  return runCaptured('bash', ['-c', command], { ...personEnv(), KUBECONFIG: testEnv().KUBECONFIG });
}

/** Runs it and fails the test, with the command and its error output, unless it exits 0. */
export async function runbookOk(command: string): Promise<string> {
  const r = await runbook(command);
  if (r.code !== 0) throw new Error(`the runbook command failed (exit ${r.code}): ${command}\n${r.stderr}`);
  return r.stdout;
}
