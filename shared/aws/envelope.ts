// A delayed message waiting on the delay queue: where it goes, and when.
import * as z from 'zod';
import { parseMessage } from '../queue/parseMessage.ts';
import { StepNameSchema } from '../queue/workItem.ts';

export const EnvelopeSchema = z.object({
  step: StepNameSchema,
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
  return parseMessage(EnvelopeSchema, text);
}
