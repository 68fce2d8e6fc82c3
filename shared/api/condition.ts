import * as z from 'zod';

/** A status condition as metav1.Condition defines it. */
export const ConditionSchema = z
  .object({
    type: z
      .string()
      .regex(/^([a-z0-9.-]+\/)?[A-Za-z0-9_.-]+$/)
      .max(316)
      .meta({ description: 'Kind of condition, such as Ready or Stalled.' }),
    status: z.enum(['True', 'False', 'Unknown']).meta({ description: 'True, False or Unknown.' }),
    reason: z
      .string()
      .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
      .max(1024)
      .meta({ description: 'Why the condition has its status, in one CamelCase word.' }),
    message: z.string().max(32768).meta({ description: 'What happened and what to do, for a person.' }),
    lastTransitionTime: z.iso.datetime().meta({ description: 'When status last changed.' }),
    observedGeneration: z
      .int()
      .min(0)
      .optional()
      .meta({ description: 'The spec generation the condition was set for.' }),
  })
  .meta({ description: 'One observation of the object, as metav1.Condition defines it.' });
export type Condition = z.output<typeof ConditionSchema>;
