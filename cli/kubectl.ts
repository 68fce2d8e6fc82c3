// Every API call the plugin makes goes through kubectl itself, with the user's flags, so it
// authenticates exactly as their kubectl does (exec plugins for EKS included) and the API server
// sees the same user (`kubectl auth whoami`).
import { execFile } from 'node:child_process';

export interface Kubectl {
  readonly flags: readonly string[];
}

export class KubectlError extends Error {
  readonly stderr: string;
  readonly args: readonly string[];
  constructor(stderr: string, args: readonly string[]) {
    super(stderr.trim() || `kubectl ${args.join(' ')} failed`);
    this.stderr = stderr;
    this.args = args;
  }
  get notFound(): boolean {
    return /\(NotFound\)|not found/i.test(this.stderr);
  }
}

export function runKubectl(k: Kubectl, args: readonly string[]): Promise<string> {
  const bin = process.env['KUBECTL'] ?? 'kubectl';
  return new Promise((resolve, reject) => {
    execFile(bin, [...k.flags, ...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new KubectlError(stderr || err.message, args));
      else resolve(stdout);
    });
  });
}

/** The object as JSON, or undefined when it does not exist. */
export async function getJson(
  k: Kubectl,
  kind: string,
  name: string,
  namespace?: string,
): Promise<Record<string, unknown> | undefined> {
  try {
    return JSON.parse(
      await runKubectl(k, ['get', kind, name, ...(namespace ? ['-n', namespace] : []), '-o', 'json']),
    ) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof KubectlError && err.notFound) return undefined;
    throw err;
  }
}

export async function listJson(k: Kubectl, kind: string): Promise<Record<string, unknown>[]> {
  const list = JSON.parse(await runKubectl(k, ['get', kind, '-o', 'json'])) as { items?: Record<string, unknown>[] };
  return list.items ?? [];
}

/** The requesting user's name as the API server sees it (a SelfSubjectReview). */
export async function whoami(k: Kubectl): Promise<string> {
  const review = JSON.parse(await runKubectl(k, ['auth', 'whoami', '-o', 'json'])) as {
    status?: { userInfo?: { username?: string } };
  };
  const name = review.status?.userInfo?.username;
  if (!name) throw new Error('kubectl auth whoami did not name a user');
  return name;
}
