// The drift-check step's function in AWS: nothing beyond every step's, but its delayed sends and
// timers also carry the periodic look.
import type { StepAws } from '../stepAws.ts';

export const DRIFT_CHECK_AWS: StepAws = {
  description:
    'Drift-check step - between rollouts writes deleted Applications again from the active plan and rebuilds a ' +
    'lost active plan from the Applications',
  sends: 'Retries and the periodic look',
  timers: 'A drift.checkInterval longer than the delay queue allows',
};
