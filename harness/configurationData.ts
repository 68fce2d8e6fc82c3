// The data of the configuration ConfigMap for a configuration document, as the chart renders it:
// config.yaml and, when the document is a valid configuration, the admission keys beside it.
// Text that is not a valid configuration gets config.yaml alone, for tests of bad input.
import { stringify } from 'yaml';
import { CONFIGURATION } from '../shared/api/constants.ts';
import { admissionData } from '../shared/configuration/admissionData.ts';
import { parseConfiguration } from '../shared/configuration/read.ts';

export function configurationData(config: Record<string, unknown> | string): Record<string, string> {
  const text = typeof config === 'string' ? config : stringify(config);
  try {
    return { [CONFIGURATION.key]: text, ...admissionData(parseConfiguration(text)) };
  } catch {
    return { [CONFIGURATION.key]: text };
  }
}
