// A CEL rule travels with the zod check it mirrors, so the API server and the control plane
// refuse the same input with the same message and the same field path.
import type * as z from 'zod';

export interface CelRule {
  readonly rule: string;
  readonly message: string;
  /** Relative JSONPath (".plan") of the field the message is about; also the zod issue path. */
  readonly fieldPath?: string;
  readonly reason?: 'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueForbidden' | 'FieldValueDuplicate';
}

/** A CEL rule plus the same predicate in TypeScript; `holds` must agree with `rule` on every value. */
export interface CelCheck<T> extends CelRule {
  readonly holds: (value: T) => boolean;
}

/** Only the keys the API server knows: the predicate must not reach the CRD. */
function ruleOnly(check: CelRule): CelRule {
  const { rule, message, fieldPath, reason } = check;
  return {
    rule,
    message,
    ...(fieldPath === undefined ? {} : { fieldPath }),
    ...(reason === undefined ? {} : { reason }),
  };
}

export function celMeta(...rules: CelRule[]): { 'x-kubernetes-validations': CelRule[] } {
  return { 'x-kubernetes-validations': rules.map(ruleOnly) };
}

/** The zod issue path for a rule's fieldPath (".a.b" -> ["a", "b"]). */
export function celPath(rule: CelRule): string[] {
  return (rule.fieldPath ?? '').split('.').filter((p) => p.length > 0);
}

/**
 * Adds checks to a schema twice over: as zod refinements (the control plane) and as CEL rules
 * in the schema's metadata (the CRD). Call once per schema: a later call replaces the rules.
 */
export function withCel<S extends z.ZodType>(schema: S, ...checks: CelCheck<z.output<S>>[]): S {
  return schema
    .superRefine((value, ctx) => {
      for (const c of checks)
        if (!c.holds(value)) ctx.addIssue({ code: 'custom', message: c.message, path: celPath(c) });
    })
    .meta(celMeta(...checks));
}

/** A CEL string literal holding `text` exactly. */
export function celString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
