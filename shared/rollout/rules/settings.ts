// The runtime's spec as the rollout step uses it, parsed once per look. When the spec does not
// validate (resolution reports why), the API's defaults stand in, except the emergency stop,
// which is read from the raw spec so that it works whatever else is wrong.
import { parseDuration } from '../../api/duration.ts';
import { readSpec, readSuspendEngine } from '../../api/runtimeReading.ts';
import type { RuntimeObject } from '../../kube/kinds.ts';
import { type RuntimeWindows, readWindows } from './maintenanceSpec.ts';
import { type RuntimeGuard, readGuard } from './workloadGuard.ts';

const DEFAULT_ACTION_MS = 30 * 60 * 1000;
const DEFAULT_APPROVAL_MS = 72 * 3600 * 1000;

export interface RolloutSettings {
  /** Whether the spec validated; when it did not, every other field is the API's default. */
  readonly readable: boolean;
  readonly aicrVersion?: string;
  readonly actionTimeoutMs: number;
  readonly approvalMs: number;
  readonly paused: boolean;
  readonly suspendEngine: boolean;
  readonly deletionPolicy: 'Orphan' | 'Delete';
  readonly adoptionUID?: string;
  /** An unreadable spec requires validation, the safe side. */
  readonly validationRequired: boolean;
  /** spec.maintenance.windows; 'unreadable' when that part does not validate, so no step starts (the safe side). */
  readonly windows: RuntimeWindows;
  /** spec.workloads: the GPU work disruptive steps wait for; 'unreadable' holds them (the safe side). */
  readonly workloads: RuntimeGuard;
}

export function settingsOf(runtime: RuntimeObject): RolloutSettings {
  const suspendEngine = readSuspendEngine(runtime.spec);
  const read = readSpec(runtime.spec);
  if (!read.readable) {
    return {
      readable: false,
      actionTimeoutMs: DEFAULT_ACTION_MS,
      approvalMs: DEFAULT_APPROVAL_MS,
      paused: false,
      suspendEngine,
      deletionPolicy: 'Orphan',
      validationRequired: true,
      windows: readWindows(runtime.spec),
      workloads: readGuard(runtime.spec),
    };
  }
  const { spec } = read;
  return {
    readable: true,
    aicrVersion: spec.aicrVersion,
    actionTimeoutMs: parseDuration(spec.actionTimeout) ?? DEFAULT_ACTION_MS,
    approvalMs: parseDuration(spec.approvalTimeout) ?? DEFAULT_APPROVAL_MS,
    paused: spec.paused,
    suspendEngine,
    deletionPolicy: spec.deletionPolicy,
    ...(spec.adoption?.runtimeUID ? { adoptionUID: spec.adoption.runtimeUID } : {}),
    validationRequired: spec.validation.deployment === 'Required',
    windows: readWindows(runtime.spec),
    workloads: readGuard(runtime.spec),
  };
}
