// A CEL rule travels with the zod schema it mirrors, so the API server and the control plane
// refuse the same input with the same field path.
export interface CelRule {
  readonly rule: string;
  readonly message: string;
  /** Relative JSONPath (".plan") of the field the message is about; also the zod issue path. */
  readonly fieldPath?: string;
  readonly reason?: 'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueForbidden' | 'FieldValueDuplicate';
}

export function celMeta(...rules: CelRule[]): { 'x-kubernetes-validations': CelRule[] } {
  return { 'x-kubernetes-validations': rules };
}

/** The zod issue path for a rule's fieldPath (".a.b" -> ["a", "b"]). */
export function celPath(rule: CelRule): string[] {
  return (rule.fieldPath ?? '').split('.').filter((p) => p.length > 0);
}
