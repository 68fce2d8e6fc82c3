import { stringify } from 'yaml';
import { ALL_CRDS } from './crd.ts';

const HEADER = '# Generated from shared/api by `npm run gen:crds`; do not edit.\n';

/** File name -> YAML text of every CRD the control plane serves. */
export function renderCrds(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [plural, build] of Object.entries(ALL_CRDS)) {
    out[`${plural}.yaml`] = HEADER + stringify(build(), { lineWidth: 0 });
  }
  return out;
}
