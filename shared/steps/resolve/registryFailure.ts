// How resolution reports a registry that failed it while pulling a bundle or copying a chart: an
// unavailable registry is retried, one that refuses the credentials needs a person.
import type { Reason } from '../../api/reasons.ts';
import { RegistryRefusedError, RegistryUnavailableError } from '../../errors.ts';
import { unauthorizedRegistry } from '../../status/reasonMessages.resolved.ts';

export interface RegistryFailure {
  readonly ok: false;
  readonly retry: boolean;
  readonly reason: Reason;
  readonly message: string;
}

/**
 * The failure `err` means while `doing` (say, "pulling bundle …"); undefined for an error that is not
 * the registry's.
 */
export function registryFailure(err: unknown, doing: string, repository: string): RegistryFailure | undefined {
  if (err instanceof RegistryUnavailableError)
    return { ok: false, retry: true, reason: 'Resolving', message: `[SERVICE_UNAVAILABLE] ${doing}: ${err.message}` };
  if (err instanceof RegistryRefusedError) {
    const message = unauthorizedRegistry(doing, err.message, repository);
    return { ok: false, retry: false, reason: 'Unauthorized', message };
  }
  return undefined;
}
