// Minting an ECR authorization token for the control plane's own AWS identity (its Lambda role,
// or in local mode whatever the AWS SDK finds). The SDK reads region, endpoint and credentials
// from the environment, as the queue client does; tests point it at moto. The client module is
// loaded on first use, so static mode never pays for it at cold start.
import type { ECRClient } from '@aws-sdk/client-ecr';
import { awsErrorCause } from '../awsErrorCause.ts';
import { awsClientOptions } from '../awsRequestTimeouts.ts';

export interface MintedToken {
  /** base64 of `AWS:<password>`: the form a docker config's `auth` field takes. */
  readonly auth: string;
  readonly expiresAt: Date;
}

export type MintResult =
  { readonly ok: true; readonly token: MintedToken } | { readonly ok: false; readonly cause: string };

export type TokenMinter = () => Promise<MintResult>;

let client: ECRClient | undefined;

/** GetAuthorizationToken for the caller's own account; ECR tokens are valid for 12 hours. */
export const mintEcrToken: TokenMinter = async () => {
  const { ECRClient: Client, GetAuthorizationTokenCommand } = await import('@aws-sdk/client-ecr');
  client ??= new Client(awsClientOptions());
  try {
    const out = await client.send(new GetAuthorizationTokenCommand({}));
    const data = out.authorizationData?.[0];
    if (!data?.authorizationToken) return { ok: false, cause: 'ECR answered without an authorization token' };
    return { ok: true, token: { auth: data.authorizationToken, expiresAt: data.expiresAt ?? new Date(0) } };
  } catch (err) {
    return { ok: false, cause: awsErrorCause(err) };
  }
};
