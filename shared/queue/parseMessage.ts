// Parses a queue message body against its schema; a failure names the first field that is wrong
// and never repeats the value.
import type * as z from 'zod';
import { MalformedMessageError } from '../errors.ts';

export function parseMessage<S extends z.ZodType>(schema: S, body: string): z.output<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    throw new MalformedMessageError('body', 'not JSON');
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : 'body';
  throw new MalformedMessageError(field, issue?.code ?? 'invalid');
}
