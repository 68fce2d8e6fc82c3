// Go-style durations ("90s", "30m", "1h30m", "7d" is spelled "168h"), as Kubernetes users and
// the runbook write them, turned into milliseconds.
const PART = /([0-9]+)(ms|s|m|h)/g;
/** The whole grammar, for schemas that state it as a pattern. */
export const DURATION_PATTERN = /^([0-9]+(ms|s|m|h))+$/;
const WHOLE = DURATION_PATTERN;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function isDuration(text: string): boolean {
  return WHOLE.test(text);
}

/** Milliseconds in a duration; undefined when the text is not one. */
export function parseDuration(text: string): number | undefined {
  if (!WHOLE.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(PART)) total += Number(m[1]) * (UNIT_MS[m[2] ?? 's'] ?? 0);
  return total;
}

/** The shortest Go-style spelling of whole seconds ("1h30m", "45s"); for messages. */
export function formatDuration(ms: number): string {
  let s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const out = `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
  return out || '0s';
}
