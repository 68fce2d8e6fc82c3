// The resolve step. For now it reports, through Resolved, that resolution is under way, or
// that the stored spec can no longer be accepted.
import type { StepRunner } from '../types.ts';
import { decide } from './decide.ts';

export const runResolve: StepRunner = (ctx) => {
  const conditions = decide(ctx.runtime);
  return Promise.resolve(conditions ? { conditions } : {});
};
