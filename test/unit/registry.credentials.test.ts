// Registry credentials in both modes against an in-memory stand-in for the API (the cluster tests
// are test/integration/registry.credentials.test.ts): aws mode reuses the token it wrote for the
// Jobs while it is fresh and mints again near its expiry; every missing piece is named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, DOCKER_CONFIG_KEY, NAMESPACES, REGISTRY_JOB_SECRET } from '../../shared/api/constants.ts';
import { ConfigurationSchema } from '../../shared/configuration/schema.ts';
import type { KubePort, WritableObject } from '../../shared/kube/port.ts';
import { type CredentialDeps, registryCredentials } from '../../shared/registry/credentials.ts';
import type { MintResult } from '../../shared/registry/ecrToken.ts';

const HOUR = 3_600_000;
const NOW = new Date('2026-11-30T12:00:00Z');
const AUTH = Buffer.from('AWS:secret').toString('base64');

/** Secrets by namespace/name; apply stores what it is given. */
function secretsKube(initial: Record<string, WritableObject> = {}): KubePort & { store: Map<string, WritableObject> } {
  const store = new Map(Object.entries(initial));
  const unused = (): Promise<never> => Promise.reject(new Error('not used'));
  return {
    store,
    get: <T>(_: unknown, name: string, ns?: string) => Promise.resolve(store.get(`${ns}/${name}`) as T),
    apply: <T>(_: unknown, obj: WritableObject) => {
      store.set(`${obj.metadata.namespace}/${obj.metadata.name}`, obj);
      return Promise.resolve(obj as T);
    },
    applyStatus: unused,
    list: unused,
    watch: unused,
    create: unused,
    update: unused,
    patch: unused,
    delete: unused,
  };
}

function registry(auth: Record<string, unknown>): ReturnType<typeof ConfigurationSchema.parse>['registry'] {
  return ConfigurationSchema.parse({ registry: { repository: 'reg.example.com/aicr', auth } }).registry;
}

function deps(kube: KubePort, results: MintResult[]): CredentialDeps & { mints: () => number } {
  let n = 0;
  return {
    kube,
    now: () => NOW,
    staleWithinMs: HOUR,
    mint: () => Promise.resolve(results[n++] ?? { ok: false, cause: 'no more' }),
    mints: () => n,
  };
}

test("REG-3 aws: a minted token goes to the Jobs' Secret with its expiry, is reused while fresh and minted again within the hour before expiry", async () => {
  const kube = secretsKube();
  const d = deps(kube, [
    { ok: true, token: { auth: AUTH, expiresAt: new Date(NOW.getTime() + 12 * HOUR) } },
    { ok: true, token: { auth: AUTH, expiresAt: new Date(NOW.getTime() + 12 * HOUR) } },
  ]);
  const first = await registryCredentials(d, registry({ mode: 'aws' }));
  assert.deepEqual(first, { ok: true, dockerConfig: JSON.stringify({ auths: { 'reg.example.com': { auth: AUTH } } }) });
  const secret = kube.store.get(`${NAMESPACES.jobs}/${REGISTRY_JOB_SECRET}`) as unknown as {
    metadata: { annotations: Record<string, string> };
    data: Record<string, string>;
  };
  assert.equal(secret.metadata.annotations[ANNOTATION.tokenExpiresAt], '2026-12-01T00:00:00.000Z');
  assert.equal(
    Buffer.from(secret.data[DOCKER_CONFIG_KEY] ?? '', 'base64').toString('utf8'),
    first.ok ? first.dockerConfig : '',
  );
  assert.deepEqual(await registryCredentials(d, registry({ mode: 'aws' })), first);
  assert.equal(d.mints(), 1, 'a fresh token is reused');
  const late = { ...d, now: () => new Date(NOW.getTime() + 11.5 * HOUR) };
  await registryCredentials(late, registry({ mode: 'aws' }));
  assert.equal(d.mints(), 2, 'within the hour before expiry it is minted again');
});

test('REG-3 aws: a failed mint names the mode and the cause, and writes nothing', async () => {
  const kube = secretsKube();
  const out = await registryCredentials(
    deps(kube, [{ ok: false, cause: 'AccessDeniedException, http 400' }]),
    registry({ mode: 'aws' }),
  );
  assert.equal(out.ok, false);
  assert.match(
    out.ok ? '' : out.message,
    /^registry\.auth\.mode aws: minting an ECR token failed \(AccessDeniedException, http 400\); check/,
  );
  assert.equal(kube.store.size, 0);
});

test('REG-3 static: every namespace without the Secret is named, and a Secret that is not a docker config', async () => {
  const config = JSON.stringify({ auths: { 'other.example.com': { auth: AUTH } } });
  const own: WritableObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'creds', namespace: NAMESPACES.system },
    data: { [DOCKER_CONFIG_KEY]: Buffer.from(config).toString('base64') },
  };
  const none = await registryCredentials(
    deps(secretsKube(), []),
    registry({ mode: 'static', staticSecretRef: 'creds' }),
  );
  assert.match(none.ok ? '' : none.message, /is missing in aicr-system, aicr-jobs, aicr-validation; create it there/);
  const jobsOnly = await registryCredentials(
    deps(secretsKube({ 'aicr-system/creds': own }), []),
    registry({ mode: 'static', staticSecretRef: 'creds' }),
  );
  assert.equal(
    jobsOnly.ok ? '' : jobsOnly.message,
    'registry.auth.mode static: the docker-config Secret creds (registry.auth.staticSecretRef) is missing in aicr-jobs, aicr-validation; create it there (type kubernetes.io/dockerconfigjson)',
  );
  const notJson = { ...own, data: { [DOCKER_CONFIG_KEY]: Buffer.from('not json').toString('base64') } };
  const unreadable = await registryCredentials(
    deps(secretsKube({ 'aicr-system/creds': notJson, 'aicr-jobs/creds': own }), []),
    registry({ mode: 'static', staticSecretRef: 'creds' }),
  );
  assert.match(
    unreadable.ok ? '' : unreadable.message,
    /^registry\.auth\.mode static: the docker-config Secret creds .* is missing in aicr-validation; .*; Secret aicr-system\/creds: the registry credentials are not a valid docker config: it is not JSON$/,
  );
  const read: string[] = [];
  const present = secretsKube({ 'aicr-system/creds': own, 'aicr-jobs/creds': own });
  const counted: KubePort = {
    ...present,
    get: <T>(kind: unknown, name: string, ns?: string) => {
      read.push(`${ns}/${name}`);
      return present.get<T>(kind as never, name, ns);
    },
  };
  const validationOnly = await registryCredentials(
    deps(counted, []),
    registry({ mode: 'static', staticSecretRef: 'creds' }),
  );
  assert.equal(validationOnly.ok, true, "validation's copy alone does not hold resolution up");
  assert.deepEqual(read, ['aicr-system/creds', 'aicr-jobs/creds'], 'and while nothing is missing it is not read');
  const empty = await registryCredentials(deps(secretsKube(), []), registry({ mode: 'static' }));
  assert.match(empty.ok ? '' : empty.message, /registry\.auth\.staticSecretRef is empty/);
});
