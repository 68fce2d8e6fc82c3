// Reads the configuration ConfigMap. A missing, unparsable or invalid configuration is a stall
// on the runtime (InvalidConfiguration), never a crash; it retries by itself, so fixing the
// chart's values clears it without touching the runtime.
import { parse as parseYaml } from 'yaml';
import { CONFIGURATION } from '../api/constants.ts';
import { StalledError } from '../errors.ts';
import { KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import { describeIssues } from './describeIssues.ts';
import { type Configuration, ConfigurationSchema } from './schema.ts';

const WHERE = `ConfigMap ${CONFIGURATION.namespace}/${CONFIGURATION.name}`;

function refused(why: string): StalledError {
  return new StalledError('InvalidConfiguration', `configuration ${WHERE}: ${why}`);
}

/** Parses the configuration document; throws a stall naming each bad key and its fix. */
export function parseConfiguration(text: string): Configuration {
  let document: unknown;
  try {
    document = parseYaml(text) ?? {};
  } catch (err) {
    throw refused(`key ${CONFIGURATION.key} is not YAML: ${(err as Error).message.split('\n')[0] ?? ''}`);
  }
  const parsed = ConfigurationSchema.safeParse(document);
  if (!parsed.success) throw refused(describeIssues(ConfigurationSchema, parsed.error).join('; '));
  return parsed.data;
}

export async function readConfiguration(kube: KubePort): Promise<Configuration> {
  const cm = await kube.get(KIND.configMap, CONFIGURATION.name, CONFIGURATION.namespace);
  if (!cm) throw refused('not found; install or upgrade the chart, which renders it from its values');
  const text = cm.data?.[CONFIGURATION.key];
  if (text === undefined) throw refused(`has no key ${CONFIGURATION.key}; install or upgrade the chart, which renders it from its values`);
  return parseConfiguration(text);
}
