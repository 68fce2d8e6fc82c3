// Field builders that keep the CRD exactly as strict as zod. Each bound is stated once and
// lands in both places: OpenAPI keywords the API server checks (maxLength, maxProperties) with
// the zod check that counts the same way, and CEL rules with friendly messages for what
// OpenAPI would otherwise refuse with a raw regex.
import * as z from 'zod';
import { type CelCheck, celMeta, celString, withCel } from './cel.ts';
import { DURATION_CEL, DURATION_MAX_LENGTH, durationSeconds, isDuration } from './duration.ts';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy without null entries. Object.fromEntries keeps a "__proto__" key as an own entry. */
function withoutNulls(input: unknown): unknown {
  return isPlainObject(input) ? Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null)) : input;
}

/**
 * An object of the API. The API server drops a field whose value is null before it validates
 * or defaults (a null reads as "not set", as Helm templates often write it); zod does the same.
 */
export function apiObject<S extends z.ZodType<Record<string, unknown>>>(schema: S) {
  return z.preprocess(withoutNulls, schema);
}

/** Adds the text `kubectl explain` shows for a field. */
export const described = <T extends z.ZodType>(schema: T, description: string): T => schema.meta({ description });

/** Characters as the API server counts them for maxLength and CEL size(): code points. */
export function codePoints(text: string): number {
  return Array.from(text).length;
}

/** A string of at most `max` characters; every string field needs a bound for CEL's cost budget. */
export function boundedString(max: number, description: string): z.ZodString {
  return z
    .string()
    .refine((s) => codePoints(s) <= max, { error: `must be at most ${max} characters` })
    .meta({ maxLength: max, description });
}

export interface PatternRule {
  readonly pattern: RegExp;
  readonly maxLength: number;
  /** What the user reads when the value does not match: never the regex itself. */
  readonly message: string;
}

/** The CEL rule and zod predicate for one pattern (ASCII classes only, so JS and RE2 agree). */
export function matchCheck(rule: PatternRule): CelCheck<string> {
  return {
    rule: `self.matches(${celString(rule.pattern.source)})`,
    message: rule.message,
    holds: (s) => rule.pattern.test(s),
  };
}

export function patternString(rule: PatternRule, description: string): z.ZodString {
  return withCel(boundedString(rule.maxLength, description), matchCheck(rule));
}

export interface DurationBounds {
  /** Both bounds are written as durations, so messages and rules quote them as users write them. */
  readonly min: string;
  readonly max: string;
  /** How the maximum reads to a person, e.g. "7 days". */
  readonly maxInWords: string;
}

export const DURATION_MESSAGE = 'must be a duration such as 30m or 1h30m (hours, minutes and seconds, in that order)';

function seconds(d: string): number {
  const s = durationSeconds(d);
  if (s === undefined) throw new Error(`bound ${d} is not a duration`);
  return s;
}

/** Format and range as two rules, so a malformed value reads "must be a duration", not "out of range". */
function durationChecks(b: DurationBounds): CelCheck<string>[] {
  const format: CelCheck<string> = { rule: DURATION_CEL, message: DURATION_MESSAGE, holds: isDuration };
  const [lo, hi] = [seconds(b.min), seconds(b.max)];
  const range: CelCheck<string> = {
    rule: `!(${format.rule}) || (duration(self) >= duration('${b.min}') && duration(self) <= duration('${b.max}'))`,
    message: `must be at least ${b.min} and at most ${b.max} (${b.maxInWords})`,
    holds: (s) => {
      const v = durationSeconds(s);
      return v === undefined || (v >= lo && v <= hi);
    },
  };
  return [format, range];
}

export function durationString(bounds: DurationBounds, description: string): z.ZodString {
  return withCel(boundedString(DURATION_MAX_LENGTH, description), ...durationChecks(bounds));
}

export interface KeyedMapRule {
  readonly key: PatternRule;
  readonly maxProperties: number;
}

/**
 * A map whose keys follow a pattern. OpenAPI cannot name a key pattern in a CRD, so a CEL rule
 * checks every key; it tests size() first so a huge key stops there, before the regex runs.
 * zod checks the keys of the input as given: its record output drops a "__proto__" key, which
 * the API server would refuse.
 */
export function keyedMap<V extends z.ZodType>(value: V, rule: KeyedMapRule, description: string) {
  const { pattern, maxLength, message } = rule.key;
  const keys: CelCheck<Record<string, unknown>> = {
    rule: `self.all(k, size(k) <= ${maxLength} && k.matches(${celString(pattern.source)}))`,
    message,
    holds: (m) => Object.keys(m).every((k) => codePoints(k) <= maxLength && pattern.test(k)),
  };
  const tooMany = `must have at most ${rule.maxProperties} items`;
  const record = z.record(z.string(), value).meta({ maxProperties: rule.maxProperties, description, ...celMeta(keys) });
  return z.preprocess((given, ctx) => {
    // A null entry is dropped by the API server before its key is checked.
    const input = withoutNulls(given);
    if (!isPlainObject(input)) return input;
    if (Object.keys(input).length > rule.maxProperties) ctx.addIssue({ code: 'custom', message: tooMany, input });
    if (!keys.holds(input)) ctx.addIssue({ code: 'custom', message, input });
    return input;
  }, record);
}
