// The maintenance-windows line of `kubectl aicr describe` (WIN-1): whether a step may start now
// and, when not, when the next window opens, judged by the same code the rollout step asks.
import { formatDuration } from '../shared/api/duration.ts';
import { readWindows } from '../shared/rollout/rules/maintenanceSpec.ts';
import { judgeWindows } from '../shared/rollout/rules/maintenanceWindows.ts';

export function windowLine(spec: unknown, now: Date): string {
  const windows = readWindows(spec);
  if (windows === 'unreadable')
    return 'spec.maintenance does not validate, so no step starts until it is fixed (Resolved names the field)';
  if (windows.length === 0) return 'none set: steps start at any time';
  const judged = judgeWindows(windows, now);
  if (judged.open) return `open now: ${judged.why}`;
  const wait = judged.opensAt ? ` (in ${formatDuration(Math.max(0, judged.opensAt.getTime() - now.getTime()))})` : '';
  return `closed: ${judged.why}${wait}; no new step starts until then`;
}
