// What the chart renders beside config.yaml for its admission policies to read (ADMISSION_KEYS):
// the pinned images and the AppProject, one value per line, sorted and without repeats. The
// chart's template (infra/chart/templates/config.yaml) computes the same from its values; a
// test renders the chart and compares. The control plane reads both and refuses a ConfigMap
// whose two halves disagree, since admission would then refuse runs the configuration allows.
import { ADMISSION_KEYS } from '../api/constants.ts';
import type { Configuration } from './schema.ts';

const lines = (values: readonly string[]): string => [...new Set(values)].sort().join('\n');

export function admissionData(configuration: Configuration): Record<string, string> {
  const { versions, validatorImages } = configuration.aicr;
  return {
    [ADMISSION_KEYS.aicrImages]: lines(Object.values(versions)),
    [ADMISSION_KEYS.validatorImages]: lines([...Object.keys(validatorImages), ...Object.values(validatorImages)]),
    [ADMISSION_KEYS.argocdProject]: configuration.argocd.project,
  };
}

/**
 * The admission keys of `data` that are missing or disagree with what `configuration` gives; none
 * when they all agree.
 */
export function admissionDisagreements(configuration: Configuration, data: Readonly<Record<string, string>>): string[] {
  const want = admissionData(configuration);
  return Object.entries(want)
    .filter(([key, value]) => data[key] !== value)
    .map(([key]) => key);
}
