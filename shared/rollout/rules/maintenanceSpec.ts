// The runtime's maintenance windows as the steps judge them (WIN-1), read from the raw spec on
// their own: a mistake elsewhere in the spec must not lift them, and windows that do not
// validate count as closed (the safe side). Every step that changes the cluster asks the same
// question here and waits the same way: woken by a timer keyed by the instant the next window
// opens, so every look of one wait arms a single timer.
import { parseDuration } from '../../api/duration.ts';
import { UNREADABLE, type Unreadable, readMaintenance } from '../../api/runtimeReading.ts';
import { type MaintenanceWindow, judgeWindows } from './maintenanceWindows.ts';

/** How soon a wait with no window ahead (or unreadable windows) looks again. */
const NO_WINDOW_RECHECK_MS = 3_600_000;

export type RuntimeWindows = readonly MaintenanceWindow[] | Unreadable;

export type WindowNow =
  | { readonly open: true }
  | { readonly open: false; readonly why: string; readonly recheckAfterMs: number; readonly recheckKey?: string };

export function readWindows(spec: unknown): RuntimeWindows {
  const maintenance = readMaintenance(spec);
  if (maintenance === UNREADABLE) return UNREADABLE;
  return (maintenance?.windows ?? []).map((w) => ({
    kind: w.kind,
    schedule: w.schedule,
    durationMs: parseDuration(w.duration) ?? 0,
    timeZone: w.timeZone,
  }));
}

/** Where a set of windows comes from, for messages: what they are called and what a person changes. */
export interface WindowSource {
  readonly called: string;
  readonly field: string;
}

export const RUNTIME_WINDOWS: WindowSource = { called: 'the maintenance windows', field: 'spec.maintenance.windows' };

/** Whether the cluster may be changed now, and if not why and when to look again. */
export function windowNow(windows: RuntimeWindows, now: Date, source: WindowSource = RUNTIME_WINDOWS): WindowNow {
  if (windows === UNREADABLE) {
    return {
      open: false,
      why:
        'spec.maintenance does not validate, so the windows are not known and nothing starts; ' +
        "the runtime's Resolved condition names the field to fix",
      recheckAfterMs: NO_WINDOW_RECHECK_MS,
    };
  }
  if (windows.length === 0) return { open: true };
  const judged = judgeWindows(windows, now);
  if (judged.open) return { open: true };
  if (!judged.opensAt)
    return {
      open: false,
      why: `outside ${source.called} (${judged.why}), so change ${source.field}`,
      recheckAfterMs: NO_WINDOW_RECHECK_MS,
    };
  const at = judged.opensAt.toISOString();
  // A second past the opening, so the look that wakes is inside the window.
  const recheckAfterMs = Math.max(0, judged.opensAt.getTime() - now.getTime()) + 1_000;
  return {
    open: false,
    why: `outside ${source.called} (${judged.why}); it starts by itself when the next window opens at ${at}`,
    recheckAfterMs,
    recheckKey: `window-${at}`,
  };
}
