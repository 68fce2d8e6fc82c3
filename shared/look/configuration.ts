// The configuration a look reads. Nearly every step reads it at every look, right after the
// runtime; the framework starts that read beside the runtime's, so a look waits for one round
// trip instead of two. When the message names the configuration's version (the forwarder watches
// it) and this process last read that very version for the step, the read is not made at all. A
// step run outside the framework (a unit test, say) reads it when it asks.
import { readConfiguration, readConfigurationVersion } from '../configuration/read.ts';
import type { Configuration } from '../configuration/schema.ts';
import type { KubePort } from '../kube/port.ts';
import type { WorkItem } from '../queue/workItem.ts';
import type { StepContext } from './contract.ts';

/**
 * What each step last read, per cluster and step: each step reads as its own identity, so one
 * step's read never stands in for another's. A handful of entries per process.
 */
const lastRead = new Map<string, { readonly version: string; readonly configuration: Configuration }>();

/**
 * Starts reading the configuration now, unless the item's version is the one last read; the step
 * meets a failure when it asks.
 */
export function configurationUnderWay(
  kube: KubePort,
  item: Pick<WorkItem, 'step' | 'cluster' | 'configuration'>,
): () => Promise<Configuration> {
  const key = `${item.cluster ?? ''}/${item.step}`;
  const known = lastRead.get(key);
  if (known && item.configuration === known.version) return () => Promise.resolve(known.configuration);
  const read = readConfigurationVersion(kube).then(({ configuration, version }) => {
    lastRead.set(key, { version, configuration });
    return configuration;
  });
  // A look that ends before it asks (the runtime gone, say) must not leave a rejection unhandled.
  read.catch(() => undefined);
  return () => read;
}

/** The look's configuration: the read the framework started, else one now. */
export function lookConfiguration(ctx: Pick<StepContext, 'kube' | 'configuration'>): Promise<Configuration> {
  return ctx.configuration ? ctx.configuration() : readConfiguration(ctx.kube);
}
