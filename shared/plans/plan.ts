// A plan: the canonical release set a rollout writes to Argo CD, and beside it (outside the
// digest) what produced it. A plan rebuilt from the Applications has releases and an owner
// but no recipe or inputs.
import * as z from 'zod';
import { ReleaseSetSchema, type ReleaseSet } from './release.ts';

export const PlanInputsSchema = z.strictObject({
  aicrVersion: z.string(),
  /** sha256 of the snapshot document the recipe was built from. */
  snapshot: z.string(),
  criteria: z.record(z.string(), z.string()),
  /** The `--set` arguments the runtime's component overrides became. */
  overrides: z.array(z.string()),
  /** The bundle the releases were read from, by digest. */
  bundle: z.string(),
});
export type PlanInputs = z.output<typeof PlanInputsSchema>;

export interface Plan {
  readonly digest: string;
  readonly releases: ReleaseSet;
  /** The runtime this plan was resolved (or rebuilt) for. */
  readonly runtimeUID: string;
  /** AICR's effective recipe, as the bundle carries it; absent for a rebuilt plan. */
  readonly recipe?: string;
  readonly inputs?: PlanInputs;
  /**
   * Rebuilt from the Applications (annotation operator.aicr.run/plan-origin): it has no recipe, so
   * it cannot be validated (PLAN-6).
   */
  readonly rebuilt?: boolean;
}

/** The plan-origin annotation's value on a rebuilt plan. */
export const REBUILT_ORIGIN = 'rebuilt';

export { ReleaseSetSchema };
