// FAULT HARNESS, test only (FLT-1): local mode's control plane in a process of its own, with the
// faults of injected.ts: killed right after a chosen write, messages handled twice or held back,
// requests answered 409 or 429, watches ended 410 Gone.
// Usage: node crashingControlPlane.ts (Node 22 strips the types), with the settings of injected.ts and
// AICR_FAULT_STEPS=rollout,drift-check (the step table's rows to run).
import { startLocalControlPlane } from '../../../shared/local/controlPlane.ts';
import { createLogger } from '../../../shared/observability/log.ts';
import { STEP_TABLE } from '../../../shared/steps/table.ts';
import { forwarderKube, stepKube } from '../../../harness/controlPlane.ts';
import { SCALED_TIMINGS } from '../resolved.ts';
import { crashing, handleAgain, holdBackMs } from './injected.ts';

const steps = (process.env['AICR_FAULT_STEPS'] ?? 'rollout').split(',');

const cp = startLocalControlPlane({
  kube: crashing(forwarderKube()),
  kubeFor: (step) => crashing(stepKube(step)),
  log: createLogger({ level: 'warn' }),
  timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 },
  table: STEP_TABLE.filter((r) => steps.includes(r.name)),
  queue: { redeliveryDelayMs: 50 },
  watchTimeoutSeconds: 30,
  handleAgain,
  holdBackMs,
});
process.on('SIGTERM', () => cp.stop());
await cp.running;
