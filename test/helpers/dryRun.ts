// Asks the real API server whether it would store an object, without storing it
// (server-side dry run: every admission and validation stage runs, nothing is persisted).
import { CustomObjectsApi } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, GROUP_VERSION, KINDS } from '../../shared/api/constants.ts';
import { adminKubeConfig } from '../../harness/env.ts';

export interface Verdict {
  readonly accepted: boolean;
  /** The API server's message when it refused; empty when it accepted. */
  readonly message: string;
  /** The spec as the API server would store it (defaulted, pruned) when it accepted. */
  readonly stored?: unknown;
}

export type Kind = keyof typeof KINDS;

export interface DryRunner {
  verdict(kind: Kind, name: string, spec: unknown): Promise<Verdict>;
}

/** One client for every request, so hundreds of dry runs stay within seconds. */
export function dryRunner(): DryRunner {
  const co = adminKubeConfig().makeApiClient(CustomObjectsApi);
  return {
    async verdict(kind, name, spec) {
      const body = { apiVersion: GROUP_VERSION, kind: KINDS[kind].kind, metadata: { name }, spec };
      try {
        const created = (await co.createClusterCustomObject({
          group: API_GROUP,
          version: API_VERSION,
          plural: KINDS[kind].plural,
          body,
          dryRun: 'All',
        })) as { spec?: unknown };
        return { accepted: true, message: '', stored: created.spec };
      } catch (err) {
        const { code, body: text } = err as { code?: number; body?: string };
        // Only a validation refusal is a verdict; anything else (409: an object is stored) is a broken test.
        if (code !== 422) throw err;
        return { accepted: false, message: (JSON.parse(text ?? '{}') as { message?: string }).message ?? '' };
      }
    },
  };
}
