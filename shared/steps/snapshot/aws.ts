// The snapshot step's function in AWS: nothing beyond every step's.
import type { StepAws } from '../stepAws.ts';

export const SNAPSHOT_AWS: StepAws = {
  description: 'Snapshot step - reads the node groups and keeps an AICR snapshot of the cluster',
};
