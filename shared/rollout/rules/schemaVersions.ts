// Objects a newer control plane wrote (PLAN-2). Plans and rollouts carry their schema version in
// the label operator.aicr.run/schema-version; a version above the one this control plane writes
// means it was downgraded after a newer one ran. Such objects are never read as this version,
// never rewritten down, and while any exists nothing is written to Argo CD: the newer control
// plane may have moved releases in ways this one cannot see. A rollout without the label predates
// it and is read as version 1.
import { LABEL, PLAN_SCHEMA_VERSION, ROLLOUT_SCHEMA_VERSION } from '../../api/constants.ts';

interface Labelled {
  readonly metadata: { readonly name: string; readonly labels?: Readonly<Record<string, string>> | undefined };
}

/** Whether `version` is a schema version above `ours`; a label that is no version at all is PLAN-3's, not this. */
export function isNewerSchema(version: string | undefined, ours: string): boolean {
  return version !== undefined && /^[1-9][0-9]{0,5}$/.test(version) && Number(version) > Number(ours);
}

function newerOf(objects: readonly Labelled[], what: string, ours: string): string[] {
  return objects.flatMap((o) => {
    const version = o.metadata.labels?.[LABEL.schemaVersion];
    return isNewerSchema(version, ours)
      ? [`${what} ${o.metadata.name} (schema version "${version ?? ''}", this control plane reads "${ours}")`]
      : [];
  });
}

/** Each newer object, named; empty when there is none. */
export function newerObjects(rollouts: readonly Labelled[], plans: readonly Labelled[]): string[] {
  return [...newerOf(rollouts, 'rollout', ROLLOUT_SCHEMA_VERSION), ...newerOf(plans, 'plan', PLAN_SCHEMA_VERSION)];
}
