// A second kube-apiserver on the test etcd, for tests that need other server flags
// (e.g. --watch-cache=false, so a watch from a compacted revision really gets 410 Gone).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testEnv } from '../../harness/env.ts';

export interface ExtraApiServer {
  readonly kubeconfig: string;
  readonly url: string;
  /** Its own audit log, when started with audit. */
  readonly auditLog: string;
  stop(): Promise<void>;
}

/** A loopback port nothing listens on yet. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

async function waitReady(port: number, proc: ChildProcess, log: string): Promise<void> {
  const ca = readFileSync(join(testEnv().TESTENV_STATE, 'pki', 'ca.crt'));
  const { Agent, request } = await import('node:https');
  const agent = new Agent({ ca });
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`extra kube-apiserver exited; see ${log}`);
    const ok = await new Promise<boolean>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/readyz', agent }, (res) =>
        resolve(res.statusCode === 200),
      );
      req.on('error', () => resolve(false));
      req.end();
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`extra kube-apiserver not ready after 90 s; see ${log}`);
}

export async function startExtraApiServer(name: string, flags: string[]): Promise<ExtraApiServer> {
  const env = testEnv();
  const pki = join(env.TESTENV_STATE, 'pki');
  const port = await freePort();
  const log = join(env.TESTENV_STATE, `${name}.log`);
  const auditLog = join(env.TESTENV_STATE, `${name}.audit.log`);
  const policy = new URL('../env/audit-policy.yaml', import.meta.url).pathname;
  const proc = spawn(
    join(env.TESTENV_BIN, 'kube-apiserver'),
    [
      `--etcd-servers=${env.TESTENV_ETCD_URL}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${port}`,
      `--tls-cert-file=${pki}/serving.crt`,
      `--tls-private-key-file=${pki}/serving.key`,
      `--client-ca-file=${pki}/ca.crt`,
      `--service-account-issuer=https://127.0.0.1:${port}`,
      `--service-account-key-file=${pki}/sa.pub`,
      `--service-account-signing-key-file=${pki}/sa.key`,
      '--service-cluster-ip-range=10.0.0.0/24',
      '--authorization-mode=RBAC',
      '--disable-admission-plugins=ServiceAccount',
      `--audit-policy-file=${policy}`,
      `--audit-log-path=${auditLog}`,
      '--audit-log-mode=blocking',
      ...flags,
    ],
    { stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')] },
  );
  await waitReady(port, proc, log);
  const kubeconfig = join(env.TESTENV_STATE, `${name}.kubeconfig`);
  writeFileSync(
    kubeconfig,
    readFileSync(env.KUBECONFIG, 'utf8').replace(
      /server: https:\/\/127\.0\.0\.1:\d+/,
      `server: https://127.0.0.1:${port}`,
    ),
  );
  return {
    kubeconfig,
    url: `https://127.0.0.1:${port}`,
    auditLog,
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

/** etcd's current revision, and a compaction up to it, through etcd's own HTTP gateway. */
export async function compactEtcd(): Promise<number> {
  const url = testEnv().TESTENV_ETCD_URL;
  const range = await fetch(`${url}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: Buffer.from('/').toString('base64') }),
  });
  const revision = Number(((await range.json()) as { header: { revision: string } }).header.revision);
  const res = await fetch(`${url}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision: String(revision), physical: true }),
  });
  if (!res.ok) throw new Error(`etcd compaction failed: HTTP ${res.status}`);
  return revision;
}
