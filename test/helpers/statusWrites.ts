import { KINDS } from '../../shared/api/constants.ts';
import { type AuditEvent, controlPlaneEventsSince } from '../../harness/audit.ts';

export interface WriteCount {
  readonly ok: number;
  /** The field manager of each successful status write, in order. */
  readonly okManagers: string[];
  readonly conflicts: number;
  readonly otherWrites: AuditEvent[];
  readonly reads: number;
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** The control plane's requests since a mark, from the API server's audit log. */
export async function controlPlaneRequests(mark: number): Promise<WriteCount> {
  const mine = await controlPlaneEventsSince(mark);
  const statusWrites = mine.filter(
    (e) =>
      WRITE_VERBS.has(e.verb) &&
      e.objectRef?.resource === KINDS.clusterRuntime.plural &&
      e.objectRef.subresource === 'status',
  );
  const code = (e: AuditEvent): number => e.responseStatus?.code ?? 0;
  return {
    ok: statusWrites.filter((e) => code(e) >= 200 && code(e) < 300).length,
    okManagers: statusWrites
      .filter((e) => code(e) >= 200 && code(e) < 300)
      .map((e) => new URL(e.requestURI, 'https://x').searchParams.get('fieldManager') ?? ''),
    conflicts: statusWrites.filter((e) => code(e) === 409).length,
    otherWrites: mine.filter((e) => WRITE_VERBS.has(e.verb) && !statusWrites.includes(e)),
    reads: mine.filter((e) => e.verb === 'get' || e.verb === 'list').length,
  };
}
