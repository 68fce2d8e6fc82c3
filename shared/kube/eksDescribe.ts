// The API endpoint and certificate authority of an EKS cluster, read with eks:DescribeCluster
// (one signed GET). Used for the further clusters of a fleet (ADR 0019): their certificate
// authorities would not fit in a function's 4 KB of environment.
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import * as z from 'zod';
import { AWS_CONNECT_TIMEOUT_MS, AWS_REQUEST_TIMEOUT_MS } from '../awsRequestTimeouts.ts';
import { httpFetch, requestSignal, timeoutFailure } from '../httpFetch.ts';
import type { AwsCredentials } from './eksToken.ts';

export interface DescribeClusterDeps {
  readonly region: string;
  readonly credentials: () => Promise<AwsCredentials>;
  /** The EKS API's address; AWS's regional endpoint unless an endpoint override is set. */
  readonly apiUrl?: string;
}

export interface ClusterConnectionInfo {
  readonly endpoint: string;
  readonly caData: string;
}

const DescribeClusterResponse = z.object({
  cluster: z.object({
    endpoint: z.string().startsWith('https://'),
    certificateAuthority: z.object({ data: z.string().min(1) }),
  }),
});

export class ClusterDescribeError extends Error {
  readonly clusterName: string;
  constructor(clusterName: string, message: string) {
    super(`cluster ${clusterName}: ${message}`);
    this.clusterName = clusterName;
    this.name = 'ClusterDescribeError';
  }
}

/** The EKS API is an AWS endpoint: the SDK clients' connect and total timeouts apply to it too. */
const eksFetch = httpFetch(AWS_CONNECT_TIMEOUT_MS);

/** Which timeout ended the request, or node's error code; never a message a peer wrote. */
function networkFailure(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return timeoutFailure(err) ?? (typeof code === 'string' && /^[A-Z0-9_]{3,40}$/.test(code) ? code : 'network error');
}

/** The signed GET, its body read whole; a network failure names the endpoint and what went wrong. */
async function describe(
  clusterName: string,
  url: URL,
  headers: Record<string, string>,
): Promise<{ status: number; ok: boolean; text: string }> {
  const signal = requestSignal(AWS_REQUEST_TIMEOUT_MS, 'an eks:DescribeCluster request');
  try {
    const res = await eksFetch(url.toString(), { headers, signal });
    return { status: res.status, ok: res.ok, text: await res.text() };
  } catch (err) {
    throw new ClusterDescribeError(
      clusterName,
      `eks:DescribeCluster at ${url.host} did not answer (${networkFailure(err)}); check the functions' route ` +
        'to the EKS API (NAT or an eks VPC endpoint)',
    );
  }
}

async function signedGetHeaders(url: URL, d: DescribeClusterDeps): Promise<Record<string, string>> {
  const signer = new SignatureV4({
    service: 'eks',
    region: d.region,
    credentials: await d.credentials(),
    sha256: Sha256,
  });
  const port = url.port ? Number(url.port) : undefined;
  const host = url.host;
  const request = new HttpRequest({
    method: 'GET',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(port ? { port } : {}),
    path: url.pathname,
    headers: { host, accept: 'application/json' },
  });
  const signed = await signer.sign(request);
  return signed.headers;
}

export async function describeEksCluster(clusterName: string, d: DescribeClusterDeps): Promise<ClusterConnectionInfo> {
  const url = new URL(
    `/clusters/${encodeURIComponent(clusterName)}`,
    d.apiUrl ?? `https://eks.${d.region}.amazonaws.com`,
  );
  const res = await describe(clusterName, url, await signedGetHeaders(url, d));
  if (res.status === 404)
    throw new ClusterDescribeError(
      clusterName,
      'no such EKS cluster in this account and region; check the fleetClusters parameter',
    );
  if (res.status === 403)
    throw new ClusterDescribeError(
      clusterName,
      'eks:DescribeCluster was refused; the function role needs it for every cluster of the fleet',
    );
  if (!res.ok) throw new ClusterDescribeError(clusterName, `eks:DescribeCluster answered ${res.status}`);
  const parsed = DescribeClusterResponse.safeParse(JSON.parse(res.text));
  if (!parsed.success)
    throw new ClusterDescribeError(
      clusterName,
      'eks:DescribeCluster gave no endpoint or certificate authority (is the cluster still being created?)',
    );
  return { endpoint: parsed.data.cluster.endpoint, caData: parsed.data.cluster.certificateAuthority.data };
}
