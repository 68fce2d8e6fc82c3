// Durations, one grammar: Go's, as Kubernetes users write them ("500ms", "90s", "1h30m"; a week
// is "168h"), read by one parser into milliseconds. The chart's configuration takes the whole
// grammar. The spec takes a subset: hours, minutes and seconds, in that order, at most six digits
// each, so the API server's CEL `duration()` reads every accepted value the same way and the
// largest (999999h999999m999999s) stays far below the int64 nanoseconds where Go's parser overflows.

/** The whole grammar (the configuration's). */
export const GO_DURATION_PATTERN = /^([0-9]+(ms|s|m|h))+$/;

/** The spec's subset. Matches the empty string too: callers also require a non-empty value (isDuration). */
export const DURATION_PATTERN = /^([0-9]{1,6}h)?([0-9]{1,6}m)?([0-9]{1,6}s)?$/;

/** The spec's test in CEL, for a string field's `self`. */
export const DURATION_CEL = `self != '' && self.matches('${DURATION_PATTERN.source}')`;

/** The longest string DURATION_PATTERN accepts (three units of six digits). */
export const DURATION_MAX_LENGTH = 21;

const PART = /([0-9]+)(ms|s|m|h)/g;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds in a duration of the whole grammar; undefined when the text is not one. */
export function parseDuration(text: string): number | undefined {
  if (!GO_DURATION_PATTERN.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(PART)) total += Number(m[1]) * (UNIT_MS[m[2] ?? 's'] ?? 0);
  return total;
}

/** Whether the text is a duration the spec accepts. */
export function isDuration(text: string): boolean {
  return text !== '' && DURATION_PATTERN.test(text);
}

/** Seconds in a duration the spec accepts, or undefined when it is not one. */
export function durationSeconds(text: string): number | undefined {
  if (!isDuration(text)) return undefined;
  const ms = parseDuration(text);
  return ms === undefined ? undefined : ms / 1000;
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
