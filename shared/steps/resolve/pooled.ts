// Registry work of one resolution runs a few requests at a time: each is mostly waiting on the
// registry, and the step has 30 s. A failure stops further starts, so the first failure in the
// items' order is the one reported, as if they had run one by one.

/** Small enough for a registry and a chart repository to take without throttling. */
export const REGISTRY_CONCURRENCY = 3;

/**
 * Runs `task` on each item as soon as one of `limit` slots is free, and starts none after a
 * failure; every answer in the items' order, or the first failure in that order.
 */
export async function pooled<T, R extends { readonly ok: boolean }>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<{ readonly ok: true; readonly answers: Extract<R, { ok: true }>[] } | Extract<R, { ok: false }>> {
  const done: (R | undefined)[] = items.map(() => undefined);
  let next = 0;
  let failed = false;
  const slot = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      const d = await task(items[i] as T);
      done[i] = d;
      if (!d.ok) failed = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, slot));
  const answers: Extract<R, { ok: true }>[] = [];
  for (const d of done) {
    // Items start in order and none starts after a failure, so one that never ran comes after it.
    if (d === undefined) break;
    if (!d.ok) return d as Extract<R, { ok: false }>;
    answers.push(d as Extract<R, { ok: true }>);
  }
  return { ok: true, answers };
}
