// Server-side apply of objects given as data, through the real kubectl.
import { execFile } from 'node:child_process';
import { testEnv } from './env.ts';

export function kubectlApply(...objects: readonly Record<string, unknown>[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'kubectl',
      [
        '--kubeconfig',
        testEnv().KUBECONFIG,
        'apply',
        '--server-side',
        '--force-conflicts',
        '--field-manager',
        'aicr-tests',
        '-f',
        '-',
      ],
      (err, _stdout, stderr) => (err ? reject(new Error(`kubectl apply failed: ${stderr}`)) : resolve()),
    );
    child.stdin?.end(objects.map((o) => JSON.stringify(o)).join('\n'));
  });
}
