// Pushes a small OCI artifact (a Helm chart: one config blob, one layer) under a tag, the way
// the distribution API takes it: each blob only when the registry lacks it (HEAD, then a
// monolithic POST + PUT upload), then the manifest. When the tag already names a manifest of
// the same digest nothing is sent at all, so pushing the same chart again costs one HEAD.
// Node built-ins only: it runs in a Lambda beside the pull (pull.ts).
import { createHash } from 'node:crypto';
import { credentialsFor } from './credentials.ts';
import { parseReference } from './reference.ts';
import {
  REGISTRY_REQUEST_TIMEOUT_MS,
  type RegistrySession,
  openSession,
  registryFetch,
  registryRequest,
} from './registryHttp.ts';

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

export interface Blob {
  readonly mediaType: string;
  readonly bytes: Uint8Array;
}

export interface Artifact {
  readonly config: Blob;
  readonly layers: readonly Blob[];
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface PushOptions {
  readonly dockerConfig?: string;
  readonly plainHTTP: boolean;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

export interface PushResult {
  readonly digest: string;
  /** False when the tag already named this very manifest: nothing was sent. */
  readonly pushed: boolean;
}

export const sha256 = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

const descriptor = (b: Blob): { mediaType: string; digest: string; size: number } => ({
  mediaType: b.mediaType,
  digest: sha256(b.bytes),
  size: b.bytes.length,
});

/** The manifest's exact bytes: its digest is what the tag is compared against. */
export function manifestBytes(artifact: Artifact): Uint8Array {
  const manifest = {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    config: descriptor(artifact.config),
    layers: artifact.layers.map(descriptor),
    ...(artifact.annotations ? { annotations: artifact.annotations } : {}),
  };
  return new TextEncoder().encode(JSON.stringify(manifest));
}

async function pushBlob(session: RegistrySession, blob: Blob): Promise<void> {
  const digest = sha256(blob.bytes);
  const head = await registryRequest(
    session,
    { method: 'HEAD', path: `blobs/${digest}`, expected: [404] },
    'blob check',
  );
  if (head.status === 200) return;
  const start = await registryRequest(session, { method: 'POST', path: 'blobs/uploads/' }, 'blob upload');
  await start.body?.cancel();
  const location = start.headers.get('location') ?? '';
  const url = new URL(location, `http://placeholder/v2/${session.ref.repository}/`);
  url.searchParams.set('digest', digest);
  const path = location.startsWith('http') ? url.toString() : `${url.pathname}${url.search}`;
  const put = await registryRequest(
    session,
    { method: 'PUT', path, contentType: 'application/octet-stream', body: blob.bytes },
    'blob upload',
  );
  await put.body?.cancel();
}

/** A session with one repository, signed with the docker config's entry for its registry, if any. */
export function sessionFor(reference: string, options: PushOptions): RegistrySession {
  const ref = parseReference(reference);
  const credentials = credentialsFor(options.dockerConfig, ref.registry);
  return openSession(ref, {
    plainHTTP: options.plainHTTP,
    fetch: options.fetch ?? registryFetch,
    timeoutMs: options.timeoutMs ?? REGISTRY_REQUEST_TIMEOUT_MS,
    ...(credentials ? { credentials } : {}),
  });
}

/** Pushes `artifact` under `reference` (host/repository:tag) unless the tag already names it. */
export async function pushArtifact(reference: string, artifact: Artifact, options: PushOptions): Promise<PushResult> {
  const session = sessionFor(reference, options);
  const tag = session.ref.tag ?? sha256(manifestBytes(artifact));
  const present = await registryRequest(
    session,
    { method: 'HEAD', path: `manifests/${tag}`, accept: OCI_MANIFEST, expected: [404] },
    'manifest check',
  );
  const holds = present.status === 200 ? (present.headers.get('docker-content-digest') ?? '') : undefined;
  return await pushTo(session, artifact, holds);
}

/**
 * Pushes `artifact` under the session's tag, which the caller has just read to hold manifest
 * `holds` (undefined: nothing); nothing is sent when that is this very manifest. The blobs go up
 * side by side: each is its own upload.
 */
export async function pushTo(
  session: RegistrySession,
  artifact: Artifact,
  holds: string | undefined,
): Promise<PushResult> {
  const manifest = manifestBytes(artifact);
  const digest = sha256(manifest);
  if (holds === digest) return { digest, pushed: false };
  await Promise.all([artifact.config, ...artifact.layers].map((blob) => pushBlob(session, blob)));
  const put = await registryRequest(
    session,
    { method: 'PUT', path: `manifests/${session.ref.tag ?? digest}`, contentType: OCI_MANIFEST, body: manifest },
    'manifest',
  );
  await put.body?.cancel();
  return { digest, pushed: true };
}
