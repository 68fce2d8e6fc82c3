// Reads the configuration ConfigMap. A missing, unparsable or invalid configuration is a stall
// on the runtime (InvalidConfiguration), never a crash; it retries by itself, so fixing the
// chart's values clears it without touching the runtime. A read the API server forbids means the
// chart's Role in the namespace is gone, as when the whole namespace was deleted (ADO-5): still
// APIRequestRefused, retried by itself, but saying so and what brings it back.
import { parse as parseYaml } from 'yaml';
import { CONFIGURATION } from '../api/constants.ts';
import { KubeRequestError, StalledError } from '../errors.ts';
import { type ConfigMapObject, KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import {
  apiRequestRefusedConfiguration,
  invalidConfiguration,
  invalidConfigurationAdmission,
  invalidConfigurationMissing,
  invalidConfigurationNoKey,
} from '../status/reasonMessages.resolved.ts';
import { admissionDisagreements } from './admissionData.ts';
import { describeIssues } from './describeIssues.ts';
import { type Configuration, ConfigurationSchema } from './schema.ts';

function refused(message: string): StalledError {
  return new StalledError('InvalidConfiguration', message);
}

/** Parses the configuration document; throws a stall naming each bad key and its fix. */
export function parseConfiguration(text: string): Configuration {
  let document: unknown;
  try {
    document = parseYaml(text) ?? {};
  } catch (err) {
    const first = (err as Error).message.split('\n')[0] ?? '';
    throw refused(invalidConfiguration(`key ${CONFIGURATION.key} is not YAML: ${first}`));
  }
  const parsed = ConfigurationSchema.safeParse(document);
  if (!parsed.success)
    throw refused(invalidConfiguration(describeIssues(ConfigurationSchema, parsed.error).join('; ')));
  return parsed.data;
}

function forbidden(err: KubeRequestError): KubeRequestError {
  const refused = new KubeRequestError(err.status, err.reason, err.fields, err.identity);
  refused.message = apiRequestRefusedConfiguration(err);
  return refused;
}

async function configMap(kube: KubePort): Promise<ConfigMapObject | undefined> {
  try {
    return await kube.get(KIND.configMap, CONFIGURATION.name, CONFIGURATION.namespace);
  } catch (err) {
    throw err instanceof KubeRequestError && err.status === 403 ? forbidden(err) : err;
  }
}

/**
 * The last configuration parsed, by the ConfigMap data it came from: nearly every look reads the
 * same data, and parsing its YAML and schema again costs about a millisecond of a look. Frozen,
 * since every look shares it.
 */
let parsed: { readonly data: string; readonly configuration: Configuration } | undefined;

function frozen<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) frozen(v);
    Object.freeze(value);
  }
  return value;
}

export async function readConfiguration(kube: KubePort): Promise<Configuration> {
  return (await readConfigurationVersion(kube)).configuration;
}

/** The configuration, and the resourceVersion of the ConfigMap it was read from. */
export async function readConfigurationVersion(
  kube: KubePort,
): Promise<{ readonly configuration: Configuration; readonly version: string }> {
  const cm = await configMap(kube);
  if (!cm) throw refused(invalidConfigurationMissing());
  const version = cm.metadata.resourceVersion;
  const data = JSON.stringify(cm.data ?? {});
  if (parsed?.data === data) return { configuration: parsed.configuration, version };
  const configuration = frozen(checked(cm));
  parsed = { data, configuration };
  return { configuration, version };
}

function checked(cm: ConfigMapObject): Configuration {
  const text = cm.data?.[CONFIGURATION.key];
  if (text === undefined) throw refused(invalidConfigurationNoKey());
  const configuration = parseConfiguration(text);
  const off = admissionDisagreements(configuration, cm.data ?? {});
  if (off.length > 0) throw refused(invalidConfigurationAdmission(off));
  return configuration;
}
