// The test registry standing in for ECR in aws mode. moto's GetAuthorizationToken mints a fixed
// credential per account (user AWS, password "<account>-auth-token"); this helper asks moto
// for it, as the control plane will, and adds that account to the registry's htpasswd, which the
// registry reads again whenever the file changes. So what the control plane mints from moto is
// what the registry accepts. Undo takes the account out again. And moto can be made to refuse
// every unauthenticated call (its IAM checks on), which fails minting as a missing role would.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ECRClient, GetAuthorizationTokenCommand } from '@aws-sdk/client-ecr';
import { ARGOCD_REGISTRY_SECRET } from '../../shared/api/constants.ts';
import { applyConfiguration, ensureArgoCdRepoCreds, testConfiguration } from '../../harness/configuration.ts';
import { awsClientConfig, testEnv } from '../../harness/env.ts';
import type { Knob } from './knobs.ts';
import { kubectl } from '../../harness/runtime.ts';

const run = promisify(execFile);

/** user and password of the token moto mints for the test account. */
export async function motoEcrCredential(): Promise<{ user: string; password: string }> {
  const out = await new ECRClient(awsClientConfig()).send(new GetAuthorizationTokenCommand({}));
  const pair = Buffer.from(out.authorizationData?.[0]?.authorizationToken ?? '', 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  if (colon < 0) throw new Error('moto minted no user:password token');
  return { user: pair.slice(0, colon), password: pair.slice(colon + 1) };
}

/** The registry accepts moto's ECR credential until undone. */
export async function acceptMotoEcrTokens(): Promise<Knob> {
  const { user, password } = await motoEcrCredential();
  const file = join(testEnv().TESTENV_STATE, 'registry', 'htpasswd.bcrypt');
  const tool = join(dirname(testEnv().TESTENV_REGISTRY_BIN), 'htpasswd');
  const line = (await run(tool, [user, password])).stdout.trim();
  const original = await readFile(file, 'utf8');
  await writeFile(file, `${original.trimEnd()}\n${line}\n`);
  let undone = false;
  return {
    undo: async () => {
      if (undone) return;
      undone = true;
      await writeFile(file, original);
    },
  };
}

async function motoAuth(count: string): Promise<void> {
  const res = await fetch(`${testEnv().AWS_ENDPOINT_URL}/moto-api/reset-auth`, { method: 'POST', body: count });
  if (!res.ok) throw new Error(`moto reset-auth failed: HTTP ${res.status}`);
}

/** moto checks every call's credentials against its IAM (none exist), so minting fails; undo turns the checks off. */
export async function refuseAwsCalls(): Promise<Knob> {
  await motoAuth('0');
  let undone = false;
  return {
    undo: async () => {
      if (undone) return;
      undone = true;
      await motoAuth('inf');
    },
  };
}

/**
 * registry.auth.mode aws against moto, as a newcomer runs it in local mode
 * (AICR_LOCAL_REGISTRY_AUTH=aws npm start): the registry accepts moto's token, and Argo CD's
 * registry Secret is left for the token-refresh step to write. Undo puts static mode back.
 */
export async function awsRegistryMode(): Promise<Knob> {
  const accepted = await acceptMotoEcrTokens();
  const cfg = testConfiguration() as { registry: Record<string, unknown> };
  await applyConfiguration({ ...cfg, registry: { ...cfg.registry, auth: { mode: 'aws' } } });
  const secret = ['secret', ARGOCD_REGISTRY_SECRET.name, '-n', ARGOCD_REGISTRY_SECRET.namespace];
  await kubectl('delete', ...secret, '--ignore-not-found');
  return {
    undo: async () => {
      await applyConfiguration();
      await kubectl('delete', ...secret, '--ignore-not-found');
      await ensureArgoCdRepoCreds();
      await accepted.undo();
    },
  };
}
