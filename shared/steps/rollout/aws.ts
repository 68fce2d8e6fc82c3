// The rollout step's function in AWS: nothing beyond every step's.
import type { StepAws } from '../stepAws.ts';

export const ROLLOUT_AWS: StepAws = {
  description: 'Rollout step - moves the runtime to its target plan through RuntimeRollouts',
};
