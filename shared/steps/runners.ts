// Every step's runner, for local mode, which runs them all in one process. A Lambda function
// imports only the runners of its own queue (functions/<queue>.ts), so it bundles only them.
import { runDriftCheck } from './driftCheck/index.ts';
import { runResolve } from './resolve/index.ts';
import { runRollout } from './rollout/index.ts';
import { runSnapshot } from './snapshot/index.ts';
import { runTokenRefresh } from './tokenRefresh/index.ts';
import type { StepName } from './table.ts';
import type { StepRunner } from './types.ts';

export const RUNNERS: Readonly<Record<StepName, StepRunner>> = {
  resolve: runResolve,
  snapshot: runSnapshot,
  rollout: runRollout,
  'token-refresh': runTokenRefresh,
  'drift-check': runDriftCheck,
};
