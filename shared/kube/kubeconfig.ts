// A connection from a kubeconfig file and a named context (local mode, tests). The context is
// always named by the caller: the file's current context is never used implicitly.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import type { Connection } from './rest.ts';

interface Named<T> {
  readonly name: string;
  readonly [key: string]: unknown;
  readonly cluster?: T;
  readonly user?: T;
  readonly context?: T;
}
interface KubeconfigFile {
  readonly clusters?: Named<Record<string, string | boolean>>[];
  readonly users?: Named<Record<string, string>>[];
  readonly contexts?: Named<{ readonly cluster: string; readonly user: string }>[];
}

function material(
  dir: string,
  entry: Record<string, unknown> | undefined,
  dataKey: string,
  fileKey: string,
): string | undefined {
  const data = entry?.[dataKey];
  if (typeof data === 'string') return Buffer.from(data, 'base64').toString('utf8');
  const file = entry?.[fileKey];
  return typeof file === 'string' ? readFileSync(resolve(dir, file), 'utf8') : undefined;
}

interface Entries {
  readonly cluster: Record<string, string | boolean>;
  readonly user: Record<string, string> | undefined;
  readonly userName: string;
}

function entries(file: string, context: string): Entries {
  const cfg = parse(readFileSync(file, 'utf8')) as KubeconfigFile;
  const ctx = cfg.contexts?.find((c) => c.name === context)?.context;
  if (!ctx) {
    throw new Error(
      `kubeconfig ${file} has no context named ${context}; pass --context with one of: ` +
        `${(cfg.contexts ?? []).map((c) => c.name).join(', ')}`,
    );
  }
  const cluster = cfg.clusters?.find((c) => c.name === ctx.cluster)?.cluster;
  if (!cluster || typeof cluster['server'] !== 'string')
    throw new Error(`kubeconfig ${file}: context ${context} names cluster ${ctx.cluster}, which has no server`);
  return { cluster, user: cfg.users?.find((u) => u.name === ctx.user)?.user, userName: ctx.user };
}

export function connectionFromKubeconfig(file: string, context: string): Connection {
  const { cluster, user, userName } = entries(file, context);
  const dir = dirname(file);
  const token =
    typeof user?.['token'] === 'string' ? user['token'] : material(dir, user, 'token-data', 'tokenFile')?.trim();
  const tls = {
    ca: material(dir, cluster, 'certificate-authority-data', 'certificate-authority'),
    cert: material(dir, user, 'client-certificate-data', 'client-certificate'),
    key: material(dir, user, 'client-key-data', 'client-key'),
  };
  return {
    server: String(cluster['server']),
    tls: {
      ...Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined)),
      insecure: cluster['insecure-skip-tls-verify'] === true,
    },
    ...(token ? { token: () => Promise.resolve(token) } : {}),
    name: userName,
    identity: () => Promise.resolve(userName),
  };
}
