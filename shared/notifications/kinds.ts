// The notifications the control plane sends (NTF-1): one EventBridge detail type per kind, all
// under one source. The step that sends them, the template's rules and docs/notifications.md
// read this table, so a kind is named in one place.
import { API_GROUP } from '../api/constants.ts';

/** The `source` of every notification: receivers' rules match on it. */
export const NOTICE_SOURCE = API_GROUP;

/** Bumped when a field of the detail changes meaning; receivers may check it. */
export const NOTICE_VERSION = 1;

export const NOTICE_KIND = {
  awaitingApproval: {
    detailType: 'Rollout Awaiting Approval',
    rule: 'AwaitingApproval',
    when: 'a rollout waits for an approver',
  },
  rolloutFailed: { detailType: 'Rollout Failed', rule: 'RolloutFailed', when: 'a rollout ended failed' },
  rolloutExpired: {
    detailType: 'Rollout Expired',
    rule: 'RolloutExpired',
    when: 'an unapproved rollout passed its approval deadline',
  },
  rolloutRevoked: {
    detailType: 'Rollout Revoked',
    rule: 'RolloutRevoked',
    when: 'a rollout was revoked where it stood',
  },
  windowWait: {
    detailType: 'Maintenance Window Wait Started',
    rule: 'WindowWait',
    when: "a step began waiting for a maintenance window (the runtime's or an Argo CD sync window)",
  },
  workloadWait: {
    detailType: 'Workload Wait Started',
    rule: 'WorkloadWait',
    when: 'a step of a release that disrupts GPU Nodes began waiting for protected work to end',
  },
  released: {
    detailType: 'Runtime Released',
    rule: 'Released',
    when: 'the runtime runs its target plan (Released=True) on a plan it was not released on just before',
  },
  stalled: {
    detailType: 'Runtime Stalled',
    rule: 'Stalled',
    when: 'the runtime became Stalled for a reason no kind above tells',
  },
} as const;
export type NoticeKind = keyof typeof NOTICE_KIND;
export const NOTICE_KINDS = Object.keys(NOTICE_KIND) as NoticeKind[];
