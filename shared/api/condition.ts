import * as z from 'zod';

/** A status condition as metav1.Condition defines it. */
export const ConditionSchema = z.object({
  type: z.string().regex(/^([a-z0-9.-]+\/)?[A-Za-z0-9_.-]+$/).max(316),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/).max(1024),
  message: z.string().max(32768),
  lastTransitionTime: z.iso.datetime(),
  observedGeneration: z.int().min(0).optional(),
});
export type Condition = z.output<typeof ConditionSchema>;
