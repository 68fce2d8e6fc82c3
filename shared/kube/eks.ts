// Kubernetes access from outside the cluster, the way EKS expects: a bearer token made from
// the function's IAM credentials, refreshed before its 15 minutes run out. An authentication
// failure refreshes the token once; a second one is an error naming the IAM identity used.
import { KubeConfig } from '@kubernetes/client-node';
import { type AwsCredentials, eksToken } from '../aws/eksToken.ts';
import { KubeRequestError } from '../errors.ts';
import { KubeClient } from './client.ts';
import type { KubePort, WatchHandle, WatchOptions } from './port.ts';
import type { ConfigMapObject, RuntimeList, RuntimeObject, StatusPatch } from './types.ts';

export interface EksClusterAccess {
  readonly clusterName: string;
  readonly endpoint: string;
  /** Base64 PEM of the cluster's certificate authority. */
  readonly caData: string;
  readonly region: string;
}

/** Tokens are reused for 10 minutes, leaving 5 of their 15 for requests already under way. */
export const TOKEN_REFRESH_MS = 10 * 60_000;

export class EksKube implements KubePort {
  private client: KubeClient | undefined;
  private issuedAt = 0;
  private identity: string | undefined;

  constructor(
    private readonly access: EksClusterAccess,
    private readonly credentials: () => Promise<AwsCredentials>,
    private readonly now: () => number = Date.now,
  ) {}

  private async current(force: boolean): Promise<KubeClient> {
    if (!this.client || force || this.now() - this.issuedAt >= TOKEN_REFRESH_MS) {
      const issuedAt = this.now();
      const token = await eksToken({ clusterName: this.access.clusterName, region: this.access.region, credentials: await this.credentials(), now: new Date(issuedAt) });
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: this.access.clusterName, server: this.access.endpoint, caData: this.access.caData, skipTLSVerify: false }],
        users: [{ name: 'aicr-control-plane', token }],
        contexts: [{ name: 'eks', cluster: this.access.clusterName, user: 'aicr-control-plane' }],
        currentContext: 'eks',
      });
      this.client = new KubeClient(kc);
      this.issuedAt = issuedAt;
    }
    return this.client;
  }

  /** The IAM identity behind the token, looked up only when the cluster refuses it. */
  async whoAmI(): Promise<string> {
    if (!this.identity) {
      // Loaded only when needed: it is on the failure path, and costs cold-start time otherwise.
      const { GetCallerIdentityCommand, STSClient } = await import('@aws-sdk/client-sts');
      const sts = new STSClient({ region: this.access.region, credentials: await this.credentials() });
      this.identity = (await sts.send(new GetCallerIdentityCommand({}))).Arn ?? 'an unknown IAM identity';
    }
    return this.identity;
  }

  private async call<T>(fn: (c: KubeClient) => Promise<T>): Promise<T> {
    try {
      return await fn(await this.current(false));
    } catch (err) {
      if (!(err instanceof KubeRequestError) || err.status !== 401) return this.named(err);
    }
    try {
      return await fn(await this.current(true));
    } catch (err) {
      return this.named(err);
    }
  }

  private async named(err: unknown): Promise<never> {
    if (err instanceof KubeRequestError && (err.status === 401 || err.status === 403)) {
      throw new KubeRequestError(err.status, err.reason, err.fields, `${await this.whoAmI()} on cluster ${this.access.clusterName}`);
    }
    throw err;
  }

  getRuntime(name: string): Promise<RuntimeObject | undefined> {
    return this.call((c) => c.getRuntime(name));
  }
  listRuntimes(): Promise<RuntimeList> {
    return this.call((c) => c.listRuntimes());
  }
  watchRuntimes(opts: WatchOptions): Promise<WatchHandle> {
    return this.call((c) => c.watchRuntimes(opts));
  }
  applyRuntimeStatus(patch: StatusPatch): Promise<RuntimeObject> {
    return this.call((c) => c.applyRuntimeStatus(patch));
  }
  getConfigMap(namespace: string, name: string): Promise<ConfigMapObject | undefined> {
    return this.call((c) => c.getConfigMap(namespace, name));
  }
  writeConfigMap(cm: ConfigMapObject): Promise<ConfigMapObject> {
    return this.call((c) => c.writeConfigMap(cm));
  }
}
