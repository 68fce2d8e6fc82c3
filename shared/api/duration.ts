// Durations as the spec spells them: hours, minutes and seconds, in that order ("90s", "30m",
// "1h30m"). The format is a subset of Go's, so the API server's CEL `duration()` reads every
// accepted value the same way, and at most six digits per unit keep the largest one
// (999999h999999m999999s) far below the int64 nanoseconds where Go's parser overflows.

/** Matches the empty string too: callers also require a non-empty value (isDuration). */
export const DURATION_PATTERN = /^([0-9]{1,6}h)?([0-9]{1,6}m)?([0-9]{1,6}s)?$/;

/** The same test in CEL, for a string field's `self`. */
export const DURATION_CEL = `self != '' && self.matches('${DURATION_PATTERN.source}')`;

export function isDuration(text: string): boolean {
  return text !== '' && DURATION_PATTERN.test(text);
}

/** The longest string DURATION_PATTERN accepts (three units of six digits). */
export const DURATION_MAX_LENGTH = 21;

const SECONDS = { h: 3600, m: 60, s: 1 } as const;

/** Seconds in a duration string, or undefined when it is not one. */
export function durationSeconds(text: string): number | undefined {
  if (!isDuration(text)) return undefined;
  let total = 0;
  for (const [, digits, unit] of text.matchAll(/([0-9]+)([hms])/g)) {
    total += Number(digits) * SECONDS[unit as keyof typeof SECONDS];
  }
  return total;
}
