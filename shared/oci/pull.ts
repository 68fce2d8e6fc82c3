// Pulls the files of a one-layer OCI artifact, as `aicr bundle -o oci://…` pushes a bundle: an
// OCI 1.1 manifest whose single layer is a gzip tar of the bundle directory. Only node
// built-ins: it runs in a Lambda. Every byte is checked against its digest before use.
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import * as z from 'zod';
import { BundleUnreadableError } from '../errors.ts';
import { credentialsFor } from './credentials.ts';
import { type OciReference, SHA256_DIGEST, formatReference, parseReference } from './reference.ts';
import {
  REGISTRY_REQUEST_TIMEOUT_MS,
  type RegistrySession,
  openSession,
  readLimited,
  registryFetch,
  registryGet,
  sizeText,
} from './registryHttp.ts';
import { TarError, readTar } from './tar.ts';

const MIB = 1024 * 1024;

export interface PullLimits {
  readonly manifestBytes: number;
  /** The layer as stored (gzip). */
  readonly layerBytes: number;
  /** The tar inside the layer. */
  readonly unpackedBytes: number;
}

export const PULL_LIMITS: PullLimits = { manifestBytes: 4 * MIB, layerBytes: 32 * MIB, unpackedBytes: 64 * MIB };

export interface PullOptions {
  /**
   * A docker config's JSON text (a `.dockerconfigjson`); without it, or without an entry for the
   * registry, the pull is anonymous.
   */
  readonly dockerConfig?: string;
  readonly plainHTTP: boolean;
  readonly fetch?: typeof fetch;
  /** Per request; a registry slower than this counts as unavailable. */
  readonly timeoutMs?: number;
  readonly limits?: Partial<PullLimits>;
}

const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
const GZIP_LAYERS = new Set([
  'application/vnd.oci.image.layer.v1.tar+gzip',
  'application/vnd.docker.image.rootfs.diff.tar.gzip',
]);

const DescriptorSchema = z.object({ mediaType: z.string(), digest: z.string(), size: z.number().int().nonnegative() });
const ManifestSchema = z.object({ mediaType: z.string().optional(), layers: z.array(DescriptorSchema) });
type Descriptor = z.output<typeof DescriptorSchema>;

const sha256 = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

function unreadable(ref: OciReference, problem: string): BundleUnreadableError {
  return new BundleUnreadableError(formatReference(ref), problem);
}

async function fetchManifest(session: RegistrySession, limits: PullLimits): Promise<Uint8Array> {
  const { ref } = session;
  const res = await registryGet(
    session,
    `manifests/${ref.digest ?? ref.tag ?? ''}`,
    'manifest',
    `${OCI_MANIFEST}, ${DOCKER_MANIFEST}`,
  );
  const bytes = await readLimited(session, res, 'manifest', limits.manifestBytes);
  if (ref.digest !== undefined && sha256(bytes) !== ref.digest)
    throw unreadable(ref, `the manifest the registry returned hashes to ${sha256(bytes)}, not to the digest asked for`);
  return bytes;
}

/** The one gzip tar layer the manifest names. */
function bundleLayer(ref: OciReference, bytes: Uint8Array): Descriptor {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw unreadable(ref, 'the manifest is not JSON');
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success)
    throw unreadable(ref, 'the manifest is not an OCI image manifest with layers (an image index is not a bundle)');
  const layers = parsed.data.layers.filter((l) => GZIP_LAYERS.has(l.mediaType));
  if (layers.length !== 1 || parsed.data.layers.length !== 1) {
    throw unreadable(
      ref,
      `the manifest has ${parsed.data.layers.length} layers, ${layers.length} of them gzip tar; ` +
        'a bundle has exactly one',
    );
  }
  const [layer] = layers as [Descriptor];
  if (!SHA256_DIGEST.test(layer.digest)) throw unreadable(ref, 'the layer digest is not a sha256 digest');
  return layer;
}

async function fetchLayer(session: RegistrySession, layer: Descriptor, limits: PullLimits): Promise<Uint8Array> {
  const { ref } = session;
  if (layer.size > limits.layerBytes)
    throw unreadable(
      ref,
      `the layer is ${layer.size} bytes, over the ${sizeText(limits.layerBytes)} the control plane reads`,
    );
  const res = await registryGet(session, `blobs/${layer.digest}`, 'layer');
  const bytes = await readLimited(session, res, 'layer', limits.layerBytes);
  if (sha256(bytes) !== layer.digest)
    throw unreadable(
      ref,
      `the layer the registry returned hashes to ${sha256(bytes)}, not to ${layer.digest} as the manifest says`,
    );
  return bytes;
}

function unpack(ref: OciReference, gzipped: Uint8Array, limits: PullLimits): Map<string, Uint8Array> {
  let archive: Uint8Array;
  try {
    archive = gunzipSync(gzipped, { maxOutputLength: limits.unpackedBytes });
  } catch (err) {
    const tooLarge =
      err instanceof RangeError || (err instanceof Error && 'code' in err && err.code === 'ERR_BUFFER_TOO_LARGE');
    throw unreadable(
      ref,
      tooLarge
        ? `the layer unpacks to more than the ${sizeText(limits.unpackedBytes)} the control plane reads`
        : 'the layer is not valid gzip',
    );
  }
  try {
    return readTar(archive);
  } catch (err) {
    if (err instanceof TarError) throw unreadable(ref, `the layer is not a readable tar: ${err.message}`);
    throw err;
  }
}

/**
 * The regular files of the artifact at `reference`, by relative path. Throws RegistryRefusedError
 * (401/403), RegistryUnavailableError (unreachable, 5xx, 429: transient) or BundleUnreadableError.
 */
export async function pullArtifactFiles(reference: string, options: PullOptions): Promise<Map<string, Uint8Array>> {
  const ref = parseReference(reference);
  const limits: PullLimits = { ...PULL_LIMITS, ...options.limits };
  const credentials = credentialsFor(options.dockerConfig, ref.registry);
  const session = openSession(ref, {
    plainHTTP: options.plainHTTP,
    fetch: options.fetch ?? registryFetch,
    timeoutMs: options.timeoutMs ?? REGISTRY_REQUEST_TIMEOUT_MS,
    ...(credentials === undefined ? {} : { credentials }),
  });
  const layer = bundleLayer(ref, await fetchManifest(session, limits));
  return unpack(ref, await fetchLayer(session, layer, limits), limits);
}
