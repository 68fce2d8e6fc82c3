// Kubernetes access from outside the cluster, the way EKS expects: a bearer token made from
// the function's IAM credentials, reused for 10 of its 15 minutes and made afresh once when the
// server answers 401. A refusal names the IAM identity used and the cluster.
import { awsClientOptions } from '../awsRequestTimeouts.ts';
import { KubeClient } from './client.ts';
import { type AwsCredentials, eksToken } from './eksToken.ts';
import type { KubePort } from './port.ts';
import { type Connection, RestClient } from './rest.ts';

export interface EksClusterAccess {
  readonly clusterName: string;
  readonly endpoint: string;
  /** Base64 PEM of the cluster's certificate authority. */
  readonly caData: string;
  readonly region: string;
}

/** Tokens are reused for 10 minutes, leaving 5 of their 15 for requests already under way. */
export const TOKEN_REFRESH_MS = 10 * 60_000;

export function eksConnection(
  access: EksClusterAccess,
  credentials: () => Promise<AwsCredentials>,
  now: () => number = Date.now,
): Connection {
  let token: string | undefined;
  let issuedAt = 0;
  let arn: string | undefined;
  return {
    server: access.endpoint,
    tls: { ca: Buffer.from(access.caData, 'base64').toString('utf8') },
    name: `the control plane's IAM role on cluster ${access.clusterName}`,
    token: async (refresh) => {
      if (!token || refresh || now() - issuedAt >= TOKEN_REFRESH_MS) {
        issuedAt = now();
        token = await eksToken({
          clusterName: access.clusterName,
          region: access.region,
          credentials: await credentials(),
          now: new Date(issuedAt),
        });
      }
      return token;
    },
    identity: async () => {
      if (!arn) {
        // Loaded only when needed: it is on the failure path, and costs cold-start time otherwise.
        const { GetCallerIdentityCommand, STSClient } = await import('@aws-sdk/client-sts');
        const sts = new STSClient({ region: access.region, credentials: await credentials(), ...awsClientOptions() });
        arn = (await sts.send(new GetCallerIdentityCommand({}))).Arn ?? 'an unknown IAM identity';
      }
      return `${arn} on cluster ${access.clusterName}`;
    },
  };
}

export function eksKube(
  access: EksClusterAccess,
  credentials: () => Promise<AwsCredentials>,
  now: () => number = Date.now,
): KubePort {
  return new KubeClient(new RestClient(eksConnection(access, credentials, now)));
}
