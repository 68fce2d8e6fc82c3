import { stringify } from 'yaml';
import { ALL_CRDS } from './crd.ts';
import { KEEP_ON_UNINSTALL } from './constants.ts';

const HEADER = '# Generated from shared/api by `npm run gen:crds`; do not edit.\n';

/**
 * Uninstalling the chart must never delete a CRD: the API server would delete every
 * ClusterRuntime and rollout with it. Helm leaves objects carrying this annotation in place.
 */

/** File name -> YAML text of every CRD the control plane serves, as the chart carries it. */
export function renderCrds(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [plural, build] of Object.entries(ALL_CRDS)) {
    const crd = build();
    const metadata = crd['metadata'];
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
      throw new Error(`the ${plural} CRD has no metadata`);
    out[`${plural}.yaml`] =
      HEADER + stringify({ ...crd, metadata: { ...metadata, annotations: KEEP_ON_UNINSTALL } }, { lineWidth: 0 });
  }
  return out;
}
