// What a queue message says: which step to run for which runtime, why, and which attempt this
// is. Keys only.
import * as z from 'zod';
import { EKS_CLUSTER_NAME } from '../api/names.ts';
import { parseMessage } from './parseMessage.ts';

/** How a step is named in a message; which steps exist is the step table's business. */
export const StepNameSchema = z.string().regex(/^[a-z][a-z0-9-]{0,39}$/);

export const WorkItemSchema = z.object({
  v: z.literal(1),
  /** A step of the table; which ones a function runs is the dispatcher's check. */
  step: StepNameSchema,
  runtime: z.object({ name: z.string().min(1).max(253), uid: z.string().min(1).max(64) }),
  /** The further cluster of a fleet the runtime is in (ADR 0019); absent, the deployment's own. */
  cluster: z.string().max(EKS_CLUSTER_NAME.maxLength).regex(EKS_CLUSTER_NAME.pattern).optional(),
  /**
   * Why the work was asked for: the wake and its watch event type ("runtime-change MODIFIED",
   * "aicr-run relist"), "retry", "recheck", "timer".
   */
  cause: z.string().min(1).max(64),
  /** 1 for new work; each retry of the same work carries the next number, so backoff grows. */
  attempt: z.int().min(1).max(10_000).default(1),
  /**
   * For a look again a step asked for (not a timer): when the look that asked started, in ms. A
   * later look of the same step asks for its own, so this one is then redundant.
   */
  askedAt: z.int().min(0).optional(),
  /**
   * For a retry: when this work first failed, in ms. Carried from retry to retry, so a step that
   * keeps failing is known to, however often its message is sent again (STL-1).
   */
  failingSince: z.int().min(0).optional(),
  /**
   * The configuration's resourceVersion as the forwarder last saw it. A step that read the
   * configuration at that version already uses what it read instead of reading it again.
   */
  configuration: z.string().min(1).max(64).optional(),
});
export type WorkItem = z.output<typeof WorkItemSchema>;
export type NewWorkItem = z.input<typeof WorkItemSchema>;

/** The message group of a runtime: all its work is ordered and never runs twice at once. */
export function runtimeGroup(uid: string): string {
  return `runtime-${uid}`;
}

export function encodeWorkItem(item: NewWorkItem): string {
  return JSON.stringify(item);
}

/** Parses a message body, naming the first field that is wrong. */
export function decodeWorkItem(body: string): WorkItem {
  return parseMessage(WorkItemSchema, body);
}
