// Whether deployment validation is installed (VAL-1), and what one run of it needs now. Installed
// means the cluster-side install put its three parts in place: the aicr-validation namespace,
// the identity `aicr validate` runs as there (ServiceAccount aicr-validate, bound by the chart's
// RBAC), and at least one validator image pinned in aicr.validatorImages. Without them no
// rollout step starts; with them, what a run still lacks (the AICR image, discovery's snapshot)
// holds the rollout in Validating until it is there.
import { AICR_VALIDATE_SERVICE_ACCOUNT, NAMESPACES } from '../../api/constants.ts';
import { readSpec } from '../../api/runtimeReading.ts';
import { type Snapshot, readSnapshot } from '../../aicr/snapshotStage.ts';
import type { Configuration } from '../../configuration/schema.ts';
import { discoveryOf } from '../../discovery/status.ts';
import { KIND, type RuntimeObject } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';
import { validationUnavailable } from '../../status/reasonMessages.noRollout.ts';

/** What is missing of the install, in words that say how to fix it; undefined when installed. */
export async function validationNotInstalled(
  kube: KubePort,
  configuration: Configuration,
): Promise<string | undefined> {
  const [ns, sa] = await Promise.all([
    kube.get(KIND.namespace, NAMESPACES.validation),
    kube.get(KIND.serviceAccount, AICR_VALIDATE_SERVICE_ACCOUNT, NAMESPACES.validation),
  ]);
  const missing = [
    ...(ns ? [] : [`namespace ${NAMESPACES.validation}`]),
    ...(sa ? [] : [`ServiceAccount ${NAMESPACES.validation}/${AICR_VALIDATE_SERVICE_ACCOUNT} and its RBAC`]),
    ...(Object.keys(configuration.aicr.validatorImages).length > 0
      ? []
      : ['validator images pinned in aicr.validatorImages']),
  ];
  if (missing.length === 0) return undefined;
  return validationUnavailable(missing);
}

export type RunNeeds =
  | { readonly ok: true; readonly version: string; readonly image: string; readonly snapshot: Snapshot }
  | { readonly ok: false; readonly why: string };

/** The AICR image and discovery's latest snapshot, which a run cannot go without. */
export async function runNeeds(
  kube: KubePort,
  runtime: RuntimeObject,
  configuration: Configuration,
): Promise<RunNeeds> {
  const reading = readSpec(runtime.spec);
  if (!reading.readable) return { ok: false, why: 'the runtime spec does not read here' };
  const version = reading.spec.aicrVersion;
  const image = configuration.aicr.versions[version];
  if (!image) return { ok: false, why: `AICR ${version} has no image in aicr.versions` };
  const name = discoveryOf(runtime).snapshot?.configMap;
  if (!name)
    return { ok: false, why: 'discovery has not taken a snapshot of the cluster yet (status.discovery.snapshot)' };
  const read = await readSnapshot(kube, name);
  if (!read.ok) return { ok: false, why: `discovery's snapshot cannot be read: ${read.problem}` };
  return { ok: true, version, image, snapshot: read.output };
}
