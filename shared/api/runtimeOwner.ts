// The runtime as the owner of what the control plane keeps for it: its rollouts, and the records
// of its resolution (snapshot, recipe and render), which the garbage collector then removes with
// the runtime instead of the next runtime's resolution finding them stale. Never set on plans or
// Applications: a plan outlives its runtime for the next one of the same name (PLAN-5) or an
// adoption, and the stack must not cascade from the runtime object.
import { GROUP_VERSION, KINDS, RUNTIME_NAME } from './constants.ts';

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
}

/** The runtime `uid` as an owner; nothing blocks the runtime's deletion on it. */
export function runtimeOwner(uid: string, name: string = RUNTIME_NAME): OwnerReference {
  return { apiVersion: GROUP_VERSION, kind: KINDS.clusterRuntime.kind, name, uid };
}

/** The ownerReferences of a record kept for the runtime `uid`. */
export function ownedByRuntime(uid: string): OwnerReference[] {
  return [runtimeOwner(uid)];
}
