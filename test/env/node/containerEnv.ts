// A container's environment, built as the kubelet builds it: the image's PATH, the Service
// variables that lead to the API server (here the loopback one), then envFrom, then env
// (later wins), with $(VAR) references expanded.
import type { CoreV1Api, V1Container, V1Pod } from '@kubernetes/client-node';
import { fieldValue } from './volumes.ts';

export interface EnvContext {
  readonly core: CoreV1Api;
  readonly pod: V1Pod;
  readonly apiPort: string;
  readonly imagePath: readonly string[];
  /** The image's ENV: what the Pod sets wins over it. */
  readonly imageEnv?: Readonly<Record<string, string>>;
}

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export async function containerEnv(ctx: EnvContext, container: V1Container): Promise<Record<string, string>> {
  const namespace = ctx.pod.metadata?.namespace ?? '';
  const env: Record<string, string> = {
    PATH: [...ctx.imagePath, SYSTEM_PATH].join(':'),
    HOME: '/root',
    HOSTNAME: ctx.pod.metadata?.name ?? '',
    KUBERNETES_SERVICE_HOST: '127.0.0.1',
    KUBERNETES_SERVICE_PORT: ctx.apiPort,
    KUBERNETES_SERVICE_PORT_HTTPS: ctx.apiPort,
    KUBERNETES_PORT: `tcp://127.0.0.1:${ctx.apiPort}`,
    ...ctx.imageEnv,
  };
  for (const from of container.envFrom ?? []) Object.assign(env, await envFrom(ctx, namespace, from));
  for (const e of container.env ?? []) {
    const value = e.value !== undefined ? expand(e.value, env) : await valueFrom(ctx, e.valueFrom);
    // An optional reference to a key or object that does not exist sets nothing, as with the kubelet.
    if (value !== undefined) env[e.name] = value;
  }
  return env;
}

type EnvFrom = NonNullable<V1Container['envFrom']>[number];

async function envFrom(ctx: EnvContext, namespace: string, from: EnvFrom): Promise<Record<string, string>> {
  const prefix = from.prefix ?? '';
  const out: Record<string, string> = {};
  if (from.configMapRef) {
    const cm = await ctx.core.readNamespacedConfigMap({ name: from.configMapRef.name ?? '', namespace });
    for (const [k, v] of Object.entries(cm.data ?? {})) out[prefix + k] = v;
  }
  if (from.secretRef) {
    const secret = await ctx.core.readNamespacedSecret({ name: from.secretRef.name ?? '', namespace });
    for (const [k, v] of Object.entries(secret.data ?? {})) out[prefix + k] = Buffer.from(v, 'base64').toString();
  }
  return out;
}

type ValueFrom = NonNullable<V1Container['env']>[number]['valueFrom'];

async function valueFrom(ctx: EnvContext, from: ValueFrom): Promise<string | undefined> {
  const namespace = ctx.pod.metadata?.namespace ?? '';
  if (from?.fieldRef) return fieldValue(ctx.pod, from.fieldRef.fieldPath);
  if (from?.configMapKeyRef) return configMapKey(ctx, namespace, from.configMapKeyRef);
  if (from?.secretKeyRef) return secretKey(ctx, namespace, from.secretKeyRef);
  return '';
}

interface KeyRef {
  readonly name?: string;
  readonly key: string;
  readonly optional?: boolean;
}

/** A missing key, or object, is an error unless the reference is optional (undefined then). */
async function keyOf(
  ref: KeyRef,
  read: () => Promise<Record<string, string> | undefined>,
  what: string,
): Promise<string | undefined> {
  let data: Record<string, string> | undefined;
  try {
    data = await read();
  } catch (err) {
    if ((err as { code?: number }).code === 404 && ref.optional) return undefined;
    throw new Error(`${what} "${ref.name ?? ''}" not found`, { cause: err });
  }
  const value = data?.[ref.key];
  if (value === undefined && !ref.optional)
    throw new Error(`couldn't find key ${ref.key} in ${what} ${ref.name ?? ''}`);
  return value;
}

function configMapKey(ctx: EnvContext, namespace: string, ref: KeyRef): Promise<string | undefined> {
  return keyOf(
    ref,
    async () => (await ctx.core.readNamespacedConfigMap({ name: ref.name ?? '', namespace })).data,
    'configmap',
  );
}

async function secretKey(ctx: EnvContext, namespace: string, ref: KeyRef): Promise<string | undefined> {
  const value = await keyOf(
    ref,
    async () => (await ctx.core.readNamespacedSecret({ name: ref.name ?? '', namespace })).data,
    'secret',
  );
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString();
}

/** $(VAR) → its value when defined; $$(VAR) stays literal, as in Kubernetes. */
export function expand(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) => {
    if (match === '$$') return '$';
    return name !== undefined && env[name] !== undefined ? env[name] : match;
  });
}
