// Copies one upstream Helm chart into the cluster's registry as an OCI Helm chart,
// <repository>/<chart>:<version>, from a classic HTTP chart repository (index.yaml, then the
// chart's .tgz) or from an OCI registry (`oci://host/path`). The source's digest of the chart
// archive (the index's sha256, or the OCI chart layer) is compared with the layer the tag holds
// already, so a chart already copied costs the index or one manifest read, and no download or
// push. The archive is pushed as it was served, checked against that digest: it is Helm's OCI
// layer as is.
import { gunzipSync } from 'node:zlib';
import { parse } from 'yaml';
import { ChartSourceError, TransientError } from '../errors.ts';
import { type HttpFetch, requestSignal, timeoutFailure } from '../httpFetch.ts';
import { HELM_CHART_LAYER, HELM_CONFIG } from '../api/helmMediaTypes.ts';
import { OCI_MANIFEST, type PushOptions, type PushResult, pushTo, sessionFor, sha256 } from './push.ts';
import { formatReference } from './reference.ts';
import {
  REGISTRY_REQUEST_TIMEOUT_MS,
  type RegistrySession,
  readLimited,
  registryFetch,
  registryRequest,
} from './registryHttp.ts';
import { readTar } from './tar.ts';

const MIB = 1024 * 1024;
/** Chart repository indexes can be large (many charts, many versions); charts are small. */
const INDEX_LIMIT = 32 * MIB;
const CHART_LIMIT = 16 * MIB;

export interface UpstreamChart {
  /** The chart repository's URL, as the recipe names it (https://…). */
  readonly source: string;
  readonly chart: string;
  readonly version: string;
}

interface IndexEntry {
  readonly url: string;
  /** sha256 hex of the .tgz, when the index gives it. */
  readonly digest?: string;
}

/** A chart repository that could not be reached, with the timeout that ended the request when one did. */
function silent(url: string, what: string, err: unknown): TransientError {
  const failure = timeoutFailure(err);
  return new TransientError(
    `chart repository ${new URL(url).host} did not answer ` +
      `(${what}${failure === undefined ? '' : `: ${failure}`}); retrying`,
  );
}

async function get(url: string, what: string, limit: number, doFetch: HttpFetch): Promise<Uint8Array> {
  // The same connect and total timeouts as a registry request: the chart repository is the registry's upstream.
  const signal = requestSignal(REGISTRY_REQUEST_TIMEOUT_MS, 'a chart repository request');
  let res: Response;
  try {
    res = await doFetch(url, { signal });
  } catch (err) {
    throw silent(url, what, err);
  }
  if (res.status >= 500 || res.status === 429)
    throw new TransientError(`chart repository ${new URL(url).host} answered http ${res.status} (${what}); retrying`);
  if (!res.ok) throw new ChartSourceError(`chart repository answered http ${res.status} to ${url} (${what})`);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await res.arrayBuffer());
  } catch (err) {
    throw silent(url, what, err);
  }
  if (bytes.length > limit)
    throw new ChartSourceError(`${url} (${what}) is larger than the ${limit / MIB} MiB the control plane reads`);
  return bytes;
}

type ChartIndex = { entries?: Record<string, { version?: string; urls?: string[]; digest?: string }[]> } | null;

/** Chart repository indexes already read, by URL: one resolution copies several charts of one repository. */
export type IndexReads = Map<string, Promise<ChartIndex>>;

async function readIndex(url: string, doFetch: HttpFetch): Promise<ChartIndex> {
  return parse(new TextDecoder().decode(await get(url, 'index', INDEX_LIMIT, doFetch))) as ChartIndex;
}

async function indexEntry(up: UpstreamChart, doFetch: HttpFetch, reads: IndexReads): Promise<IndexEntry> {
  const base = up.source.endsWith('/') ? up.source : `${up.source}/`;
  const indexUrl = new URL('index.yaml', base).toString();
  const pending = reads.get(indexUrl) ?? readIndex(indexUrl, doFetch);
  reads.set(indexUrl, pending);
  const index = await pending;
  const entry = index?.entries?.[up.chart]?.find((e) => e.version === up.version);
  const url = entry?.urls?.[0];
  if (!entry || !url)
    throw new ChartSourceError(`chart repository ${up.source} has no chart ${up.chart} at version ${up.version}`);
  return { url: new URL(url, base).toString(), ...(entry.digest ? { digest: `sha256:${entry.digest}` } : {}) };
}

/** The manifest the tag holds now and its layer's digest, if any. */
async function atTag(session: RegistrySession): Promise<{ manifest: string; layer: string | undefined } | undefined> {
  const res = await registryRequest(
    session,
    { method: 'GET', path: `manifests/${session.ref.tag ?? ''}`, accept: OCI_MANIFEST, expected: [404] },
    'manifest check',
  );
  if (res.status === 404) return undefined;
  const bytes = await readLimited(session, res, 'manifest', MIB);
  const manifest = JSON.parse(new TextDecoder().decode(bytes)) as { layers?: { digest?: string }[] };
  return { manifest: sha256(bytes), layer: manifest.layers?.[0]?.digest };
}

/** Chart.yaml of the packaged chart, as the JSON Helm keeps in an OCI chart's config. */
function chartConfig(up: UpstreamChart, tgz: Uint8Array): Uint8Array {
  const files = readTar(gunzipSync(tgz, { maxOutputLength: 8 * CHART_LIMIT }));
  const chartYaml = [...files.entries()].find(([path]) => /^[^/]+\/Chart\.yaml$/.test(path))?.[1];
  const meta = chartYaml
    ? (parse(new TextDecoder().decode(chartYaml)) as { name?: unknown; version?: unknown } | null)
    : null;
  if (meta?.name !== up.chart || meta.version !== up.version)
    throw new ChartSourceError(
      `the archive served for ${up.chart} ${up.version} holds no Chart.yaml of that name and version`,
    );
  return new TextEncoder().encode(JSON.stringify(meta));
}

interface OciChart {
  readonly config: { readonly mediaType: string; readonly digest: string };
  readonly layer: { readonly mediaType: string; readonly digest: string };
}

/** The Helm chart an OCI source holds at the version: its config and its one chart layer. */
async function ociChart(session: RegistrySession, up: UpstreamChart): Promise<OciChart> {
  const res = await registryRequest(
    session,
    { method: 'GET', path: `manifests/${up.version}`, accept: OCI_MANIFEST, expected: [404] },
    'chart manifest',
  );
  if (res.status === 404) throw new ChartSourceError(`${up.source}/${up.chart} has no version ${up.version}`);
  const manifest = JSON.parse(
    new TextDecoder().decode(await readLimited(session, res, 'chart manifest', MIB)),
  ) as Partial<OciChart> & { layers?: { mediaType: string; digest: string }[] };
  const layer = manifest.layers?.find((l) => l.mediaType === HELM_CHART_LAYER);
  if (!manifest.config || !layer)
    throw new ChartSourceError(`${up.source}/${up.chart}:${up.version} is not a Helm chart (no chart layer)`);
  return { config: manifest.config, layer };
}

async function blob(session: RegistrySession, digest: string, limit: number): Promise<Uint8Array> {
  const bytes = await readLimited(
    session,
    await registryRequest(session, { method: 'GET', path: `blobs/${digest}` }, 'chart blob'),
    'chart blob',
    limit,
  );
  if (sha256(bytes) !== digest)
    throw new ChartSourceError(`a blob of ${formatReference(session.ref)} does not hash to its digest`);
  return bytes;
}

/**
 * Copies a chart from an OCI registry (`oci://host/path` + chart): read its manifest, then its
 * blobs only when the target lacks the same layer.
 */
async function copyOciChart(up: UpstreamChart, target: string, options: PushOptions): Promise<PushResult> {
  const source = sessionFor(
    `${up.source.slice('oci://'.length).replace(/\/$/, '')}/${up.chart}:${up.version}`,
    options,
  );
  const chart = await ociChart(source, up);
  const session = sessionFor(target, options);
  const present = await atTag(session);
  if (present !== undefined && present.layer === chart.layer.digest) return { digest: present.manifest, pushed: false };
  const [config, layer] = await Promise.all([
    blob(source, chart.config.digest, MIB),
    blob(source, chart.layer.digest, CHART_LIMIT),
  ]);
  return await pushTo(
    session,
    {
      config: { mediaType: chart.config.mediaType, bytes: config },
      layers: [{ mediaType: chart.layer.mediaType, bytes: layer }],
    },
    present?.manifest,
  );
}

/** Copies `up` to `target` (host/repository:version) unless the tag already holds the same archive. */
export async function copyChart(
  up: UpstreamChart,
  target: string,
  options: PushOptions,
  indexes: IndexReads = new Map(),
): Promise<PushResult> {
  if (up.source.startsWith('oci://')) return await copyOciChart(up, target, options);
  const doFetch = options.fetch ?? registryFetch;
  const entry = await indexEntry(up, doFetch, indexes);
  const session = sessionFor(target, options);
  // The tag is read while the archive downloads: both are needed unless the tag holds the same layer.
  const reading = atTag(session);
  if (entry.digest !== undefined) {
    const present = await reading;
    if (present !== undefined && present.layer === entry.digest) return { digest: present.manifest, pushed: false };
  }
  const [tgz, present] = await Promise.all([get(entry.url, 'chart', CHART_LIMIT, doFetch), reading]);
  if (entry.digest !== undefined && sha256(tgz) !== entry.digest)
    throw new ChartSourceError(
      `the archive served for ${up.chart} ${up.version} does not match the digest its index gives`,
    );
  return await pushTo(
    session,
    {
      config: { mediaType: HELM_CONFIG, bytes: chartConfig(up, tgz) },
      layers: [{ mediaType: HELM_CHART_LAYER, bytes: tgz }],
    },
    present?.manifest,
  );
}
