// What a queue message says: which step to run for which runtime, and why. Keys only.
import * as z from 'zod';
import { parseMessage } from './parseMessage.ts';

export const STEPS = ['resolve'] as const;
export type StepName = (typeof STEPS)[number];

export const WorkItemSchema = z.object({
  v: z.literal(1),
  step: z.enum(STEPS),
  runtime: z.object({ name: z.string().min(1).max(253), uid: z.string().min(1).max(64) }),
  /** Why the work was asked for: a watch event type, "relist", "retry", "timer". */
  cause: z.string().min(1).max(64),
});
export type WorkItem = z.output<typeof WorkItemSchema>;

/** The message group of a runtime: all its work is ordered and never runs twice at once. */
export function runtimeGroup(uid: string): string {
  return `runtime-${uid}`;
}

export function encodeWorkItem(item: WorkItem): string {
  return JSON.stringify(item);
}

/** Parses a message body, naming the first field that is wrong. */
export function decodeWorkItem(body: string): WorkItem {
  return parseMessage(WorkItemSchema, body);
}
