// A delayed message waiting on the delay queue: where it goes, and when.
import * as z from 'zod';
import { MalformedMessageError } from '../errors.ts';
import { STEPS } from '../queue/workItem.ts';

export const EnvelopeSchema = z.object({
  step: z.enum(STEPS),
  group: z.string().min(1).max(128),
  dedupId: z.string().min(1).max(512),
  body: z.string().min(1).max(200_000),
  /** Epoch milliseconds before which the message must not reach its FIFO queue. */
  notBefore: z.int().min(0),
});
export type Envelope = z.output<typeof EnvelopeSchema>;

export function encodeEnvelope(e: Envelope): string {
  return JSON.stringify(e);
}

export function decodeEnvelope(text: string): Envelope {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new MalformedMessageError('body', 'not JSON');
  }
  const parsed = EnvelopeSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new MalformedMessageError(issue?.path.join('.') || 'body', issue?.code ?? 'invalid');
}
