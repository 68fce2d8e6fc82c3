// Materialises a Pod's volumes into its directory, as a kubelet's volume plugins do, so each
// container can bind them at their mount paths. The ServiceAccount token comes from the
// TokenRequest API, bound to the Pod, so the process acts as the Pod's ServiceAccount.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type {
  CoreV1Api,
  V1DownwardAPIVolumeFile,
  V1KeyToPath,
  V1Pod,
  V1Volume,
  V1VolumeProjection,
} from '@kubernetes/client-node';

export interface VolumeContext {
  readonly core: CoreV1Api;
  readonly pod: V1Pod;
  /** The Pod's own directory; volumes go under volumes/. */
  readonly dir: string;
  /** The Node's /etc/os-release, served to Pods that mount it from the host. */
  readonly osRelease: string;
}

/** volume name → the host path a container binds. */
export type MaterialisedVolumes = Map<string, string>;

export class VolumeError extends Error {
  override readonly name = 'VolumeError';
}

export async function materialiseVolumes(ctx: VolumeContext): Promise<MaterialisedVolumes> {
  const out: MaterialisedVolumes = new Map();
  for (const volume of ctx.pod.spec?.volumes ?? []) {
    out.set(volume.name, await materialise(ctx, volume));
  }
  return out;
}

async function materialise(ctx: VolumeContext, volume: V1Volume): Promise<string> {
  const target = join(ctx.dir, 'volumes', volume.name);
  if (volume.hostPath) return hostPath(ctx, volume.hostPath.path);
  await mkdir(target, { recursive: true });
  if (volume.emptyDir) return target;
  if (volume.configMap)
    await writeFiles(
      target,
      await configMapFiles(ctx, volume.configMap.name ?? '', volume.configMap.items, volume.configMap.optional),
    );
  else if (volume.secret)
    await writeFiles(
      target,
      await secretFiles(ctx, volume.secret.secretName ?? '', volume.secret.items, volume.secret.optional),
    );
  else if (volume.downwardAPI) await writeFiles(target, downwardFiles(ctx.pod, volume.downwardAPI.items ?? []));
  else if (volume.projected) await writeFiles(target, await projectedFiles(ctx, volume.projected.sources ?? []));
  else throw new VolumeError(`volume ${volume.name}: this kind of volume is not supported by the process node`);
  return target;
}

async function hostPath(ctx: VolumeContext, path: string): Promise<string> {
  // The Node's OS is part of its shape, not this machine's: serve the Node's os-release.
  if (path !== '/etc/os-release') return path;
  const file = join(ctx.dir, 'host', 'os-release');
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, ctx.osRelease);
  return file;
}

type Files = Map<string, string | Buffer>;

async function writeFiles(dir: string, files: Files): Promise<void> {
  for (const [path, content] of files) {
    const file = join(dir, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content, { mode: 0o644 });
  }
}

/** The items asked for; a key the object lacks is an error unless the volume is optional (then it is left out, as the kubelet does). */
function pick<T>(data: Record<string, T>, items: V1KeyToPath[] | undefined, optional: boolean): Map<string, T> {
  const out = new Map<string, T>();
  if (!items) for (const [k, v] of Object.entries(data)) out.set(k, v);
  for (const item of items ?? []) {
    const value = data[item.key];
    if (value === undefined && optional) continue;
    if (value === undefined) throw new VolumeError(`key ${item.key} not found`);
    out.set(item.path, value);
  }
  return out;
}

async function configMapFiles(
  ctx: VolumeContext,
  name: string,
  items: V1KeyToPath[] | undefined,
  optional = false,
): Promise<Files> {
  const namespace = ctx.pod.metadata?.namespace ?? '';
  let cm;
  try {
    cm = await ctx.core.readNamespacedConfigMap({ name, namespace });
  } catch (err) {
    if ((err as { code?: number }).code === 404 && optional) return new Map();
    throw new VolumeError(`configmap "${name}" not found`, { cause: err });
  }
  const binary = Object.fromEntries(Object.entries(cm.binaryData ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));
  return pick<string | Buffer>({ ...cm.data, ...binary }, items, optional);
}

async function secretFiles(
  ctx: VolumeContext,
  name: string,
  items: V1KeyToPath[] | undefined,
  optional = false,
): Promise<Files> {
  const namespace = ctx.pod.metadata?.namespace ?? '';
  let secret;
  try {
    secret = await ctx.core.readNamespacedSecret({ name, namespace });
  } catch (err) {
    if ((err as { code?: number }).code === 404 && optional) return new Map();
    throw new VolumeError(`secret "${name}" not found`, { cause: err });
  }
  const data = Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));
  return pick<string | Buffer>(data, items, optional);
}

const pairs = (m: Record<string, string> | undefined): string =>
  Object.entries(m ?? {})
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join('\n');

function fieldValue(pod: V1Pod, fieldPath: string): string {
  const meta = pod.metadata ?? {};
  const fields: Record<string, string | undefined> = {
    'metadata.name': meta.name,
    'metadata.namespace': meta.namespace,
    'metadata.uid': meta.uid,
    'metadata.labels': pairs(meta.labels),
    'metadata.annotations': pairs(meta.annotations),
    'spec.nodeName': pod.spec?.nodeName,
    'spec.serviceAccountName': pod.spec?.serviceAccountName,
    'status.hostIP': '127.0.0.1',
    'status.podIP': '127.0.0.1',
  };
  const label = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (label?.[1] && label[2]) return (label[1] === 'labels' ? meta.labels : meta.annotations)?.[label[2]] ?? '';
  return fields[fieldPath] ?? '';
}

export { fieldValue };

function downwardFiles(pod: V1Pod, items: V1DownwardAPIVolumeFile[]): Files {
  return new Map(items.filter((i) => i.fieldRef).map((i) => [i.path, fieldValue(pod, i.fieldRef?.fieldPath ?? '')]));
}

async function projectedFiles(ctx: VolumeContext, sources: V1VolumeProjection[]): Promise<Files> {
  const out: Files = new Map();
  for (const source of sources) {
    if (source.serviceAccountToken) {
      const { path, audience, expirationSeconds } = source.serviceAccountToken;
      out.set(path, await requestToken(ctx, audience, expirationSeconds));
    }
    if (source.configMap)
      for (const [k, v] of await configMapFiles(
        ctx,
        source.configMap.name ?? '',
        source.configMap.items,
        source.configMap.optional,
      ))
        out.set(k, v);
    if (source.secret)
      for (const [k, v] of await secretFiles(
        ctx,
        source.secret.name ?? '',
        source.secret.items,
        source.secret.optional,
      ))
        out.set(k, v);
    if (source.downwardAPI) for (const [k, v] of downwardFiles(ctx.pod, source.downwardAPI.items ?? [])) out.set(k, v);
  }
  return out;
}

async function requestToken(
  ctx: VolumeContext,
  audience: string | undefined,
  expirationSeconds: number | undefined,
): Promise<string> {
  const meta = ctx.pod.metadata ?? {};
  const res = await ctx.core.createNamespacedServiceAccountToken({
    name: ctx.pod.spec?.serviceAccountName ?? 'default',
    namespace: meta.namespace ?? '',
    body: {
      spec: {
        audiences: audience ? [audience] : [],
        expirationSeconds: expirationSeconds ?? 3607,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: meta.name ?? '', uid: meta.uid ?? '' },
      },
    },
  });
  return res.status?.token ?? '';
}
