// Retention (PLAN-8): a bounded number of plans stays in aicr-system. The plans in use (active,
// target, candidate, pinned) are never removed and do not count; of the rest, the newest
// `keep` stay and the older ones go.
import type { ConfigMapObject } from '../kube/kinds.ts';

export function plansToRetire(plans: readonly ConfigMapObject[], inUse: ReadonlySet<string>, keep: number): string[] {
  const others = plans
    .filter((p) => !inUse.has(p.metadata.name))
    .sort(
      (a, b) =>
        (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '') ||
        a.metadata.name.localeCompare(b.metadata.name),
    );
  return others.slice(keep).map((p) => p.metadata.name);
}
