// API requests the control plane made, counted from the API server's own audit log.
import { controlPlaneEventsSince } from '../harness/audit.ts';

export type RequestCounts = Readonly<Record<string, number>> & { readonly total: number };

export async function controlPlaneRequestsSince(mark: number): Promise<RequestCounts> {
  const counts: Record<string, number> = { total: 0 };
  for (const e of await controlPlaneEventsSince(mark)) {
    const subresource = e.objectRef?.subresource ? `/${e.objectRef.subresource}` : '';
    const key = `${e.verb} ${e.objectRef?.resource ?? e.requestURI}${subresource}`;
    counts[key] = (counts[key] ?? 0) + 1;
    counts['total'] = (counts['total'] ?? 0) + 1;
  }
  return counts as RequestCounts;
}

export function perChange(counts: RequestCounts, changes: number): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Math.round((v / changes) * 100) / 100]));
}
