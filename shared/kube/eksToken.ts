// The EKS bearer token (the aws-iam-authenticator scheme): a presigned STS
// GetCallerIdentity URL whose signed headers include x-k8s-aws-id = the cluster name,
// base64url-encoded without padding behind "k8s-aws-v1.". EKS accepts it for 15 minutes
// from its signing time (X-Amz-Date), whatever X-Amz-Expires says; callers refresh well before that.
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface EksTokenRequest {
  readonly clusterName: string;
  readonly region: string;
  readonly credentials: AwsCredentials;
  readonly now?: Date;
}

export const TOKEN_PREFIX = 'k8s-aws-v1.';
export const CLUSTER_HEADER = 'x-k8s-aws-id';

export async function presignedIdentityUrl(req: EksTokenRequest): Promise<string> {
  const hostname = `sts.${req.region}.amazonaws.com`;
  const signer = new SignatureV4({ service: 'sts', region: req.region, credentials: req.credentials, sha256: Sha256 });
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname,
    path: '/',
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
    headers: { host: hostname, [CLUSTER_HEADER]: req.clusterName },
  });
  const signed = await signer.presign(request, { expiresIn: 60, ...(req.now ? { signingDate: req.now } : {}) });
  return `https://${hostname}/?${canonicalQuery(signed.query ?? {})}`;
}

// The order the AWS CLI's `eks get-token` produces, so our tokens are the same bytes as its.
const QUERY_ORDER = [
  'Action',
  'Version',
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Security-Token',
  'X-Amz-Signature',
];

function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalQuery(query: Record<string, string | string[] | null>): string {
  const unexpected = Object.keys(query).filter((k) => !QUERY_ORDER.includes(k));
  if (unexpected.length > 0) throw new Error(`unexpected presign parameters: ${unexpected.join(', ')}`);
  return QUERY_ORDER.flatMap((k) => {
    const v = query[k];
    return typeof v === 'string' ? [`${k}=${rfc3986(v)}`] : [];
  }).join('&');
}

export async function eksToken(req: EksTokenRequest): Promise<string> {
  return TOKEN_PREFIX + Buffer.from(await presignedIdentityUrl(req)).toString('base64url');
}
