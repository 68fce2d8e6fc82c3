// Registry work of one resolution runs a few requests at a time: each is mostly waiting on the
// registry, and the step has 30 s. A failure stops further starts, so the first failure in the
// items' order is the one reported, as if they had run one by one.

/** Small enough for a registry and a chart repository to take without throttling. */
export const REGISTRY_CONCURRENCY = 3;

/** What a pooled task answers: a failure ends the pool. */
export interface Outcome {
  readonly ok: boolean;
}

/** Each item as soon as one of `limit` slots is free; after a failure, no further item starts. */
export async function pooled<T, R extends Outcome>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<(R | undefined)[]> {
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
  return done;
}
