// Before a rollout step writes a release, the registry must still hold, at each chart version the
// release names, the manifest the plan recorded (SEC-5). Argo CD fetches charts by version, and a
// version can be pushed again with other bytes by anyone with push rights under the prefix; the
// plan's digest covers the recorded manifest digests, so a chart that changed after approval is
// refused here, before anything is written. One HEAD per source; the body is read only from a
// registry that answers without Docker-Content-Digest.
import {
  BundleUnreadableError,
  RegistryCredentialsInvalidError,
  RegistryRefusedError,
  RegistryUnavailableError,
} from '../../errors.ts';
import { OCI_MANIFEST, sessionFor, sha256 } from '../../oci/push.ts';
import { readLimited, registryRequest } from '../../oci/registryHttp.ts';
import { type ChartSource, type Release, pinnedSources } from '../../plans/release.ts';
import type { PinsFact } from '../rules/releaseMoveKinds.ts';

export interface PinOptions {
  readonly dockerConfig: string;
  readonly plainHTTP: boolean;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

const MANIFEST_LIMIT = 1024 * 1024;

export const chartReference = (s: ChartSource): string => `${s.repoURL}/${s.chart}:${s.version}`;

/** The manifest digest the registry holds at the source's version, or undefined when it holds none. */
async function heldDigest(source: ChartSource, options: PinOptions): Promise<string | undefined> {
  // A check before a write should not hold the step as long as a push may take.
  const session = sessionFor(chartReference(source), { ...options, timeoutMs: options.timeoutMs ?? 10_000 });
  const head = await registryRequest(
    session,
    { method: 'HEAD', path: `manifests/${source.version}`, accept: OCI_MANIFEST, expected: [404] },
    'chart manifest check',
  );
  if (head.status === 404) return undefined;
  const header = head.headers.get('docker-content-digest');
  if (header) return header;
  const res = await registryRequest(
    session,
    { method: 'GET', path: `manifests/${source.version}`, accept: OCI_MANIFEST },
    'chart manifest',
  );
  return sha256(await readLimited(session, res, 'chart manifest', MANIFEST_LIMIT));
}

/** Whether every pinned source of the release still holds its recorded manifest. */
export async function checkPins(release: Release, options: PinOptions): Promise<PinsFact> {
  for (const source of pinnedSources(release)) {
    let held: string | undefined;
    try {
      held = await heldDigest(source, options);
    } catch (err) {
      if (
        err instanceof RegistryUnavailableError ||
        err instanceof RegistryRefusedError ||
        err instanceof RegistryCredentialsInvalidError ||
        err instanceof BundleUnreadableError
      )
        return {
          state: 'unchecked',
          message: `the chart digests of release ${release.name} could not be checked: ${err.message}`,
        };
      throw err;
    }
    if (held === source.digest) continue;
    const now = held === undefined ? 'the registry no longer has that version' : `the registry now holds ${held}`;
    return {
      state: 'changed',
      message:
        `chart ${chartReference(source)} of release ${release.name} is not what the plan pinned: ` +
        `the plan recorded ${source.digest ?? ''}, and ${now}; it was pushed again after the plan was made`,
    };
  }
  return { state: 'held' };
}
