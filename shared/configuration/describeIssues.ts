// Turns zod's complaints about a configuration into sentences that name the key, as a person
// would write it in the chart's values, and for a misspelt key the one that was meant.
import * as z from 'zod';
import { closestKey } from './closest.ts';

/** The keys an object schema at `path` accepts, unwrapping defaults and optionals. */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  for (const segment of [...path, undefined]) {
    while (current instanceof z.ZodDefault || current instanceof z.ZodOptional || current instanceof z.ZodPrefault) {
      current = current.unwrap() as z.ZodType;
    }
    if (segment === undefined) break;
    if (current instanceof z.ZodObject) current = (current.shape as Record<string, z.ZodType>)[String(segment)];
    else if (current instanceof z.ZodArray) current = current.element as z.ZodType;
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else return [];
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape as object) : [];
}

function joinPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, p) => (typeof p === 'number' ? `${out}[${p}]` : out ? `${out}.${String(p)}` : String(p)),
    '',
  );
}

export function describeIssues(schema: z.ZodType, error: z.ZodError): string[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(schema, issue.path);
      return issue.keys.map((key) => {
        const near = closestKey(key, known);
        const where = joinPath([...issue.path, key]);
        return near
          ? `${where}: unknown key; did you mean ${joinPath([...issue.path, near])}?`
          : `${where}: unknown key; known keys here are ${known.join(', ')}`;
      });
    }
    return [`${joinPath(issue.path) || '(top level)'}: ${issue.message}`];
  });
}
