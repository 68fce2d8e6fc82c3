// A process's memory of recent things (runtimes seen deleted, looks started), kept bounded: a Set
// or Map remembers in the order entries were added, so the first entry is the oldest.

/** Forgets the oldest entry once there are more than `kept`. */
export function forgetOldest(memory: Set<string> | Map<string, unknown>, kept: number): void {
  if (memory.size <= kept) return;
  const oldest = memory.keys().next().value;
  if (oldest !== undefined) memory.delete(oldest);
}
