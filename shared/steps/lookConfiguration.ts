// The configuration a look reads. Nearly every step reads it at every look, right after the
// runtime; the framework starts that read beside the runtime's, so a look waits for one round
// trip instead of two (change -> status is two requests shorter in time). A step run outside the
// framework (a unit test, say) reads it when it asks.
import { readConfiguration } from '../configuration/read.ts';
import type { Configuration } from '../configuration/schema.ts';
import type { KubePort } from '../kube/port.ts';
import type { StepContext } from './types.ts';

/** Starts reading the configuration now; the step meets its failure, if any, when it asks. */
export function configurationUnderWay(kube: KubePort): () => Promise<Configuration> {
  const read = readConfiguration(kube);
  // A look that ends before it asks (the runtime gone, say) must not leave a rejection unhandled.
  read.catch(() => undefined);
  return () => read;
}

/** The look's configuration: the read the framework started, else one now. */
export function lookConfiguration(ctx: Pick<StepContext, 'kube' | 'configuration'>): Promise<Configuration> {
  return ctx.configuration ? ctx.configuration() : readConfiguration(ctx.kube);
}
