// The control plane's configuration (the chart's ConfigMap), watched by name. A change to its data
// wakes every step that reads it, so a `helm upgrade` takes effect at once rather than at each
// step's next look. Its resourceVersion goes on every message the process sends, and a step that
// read the configuration at that version uses what it read instead of reading it again
// (shared/look/configuration.ts): nearly every look used to begin with that read.
import { createHash } from 'node:crypto';
import { CONFIGURATION, RUNTIME_NAME } from '../api/constants.ts';
import { type ConfigMapObject, KIND } from '../kube/kinds.ts';
import { WAKE } from '../steps/table.ts';
import type { WatchedKind } from './watchedKind.ts';

export const CONFIGURATION_WATCH: WatchedKind<ConfigMapObject> = {
  id: 'configuration',
  wake: WAKE.configurationChange,
  kind: KIND.configMap,
  selection: { namespace: CONFIGURATION.namespace, fieldSelector: `metadata.name=${CONFIGURATION.name}` },
  isConfiguration: true,
  // Listing it (a forwarder starting, a watch that cannot resume) only learns its version, so a
  // new forwarder does not wake every step: a change made while none watched reaches each step
  // at its next look, whose message names a version that step has not read.
  relistIsNews: false,
  // It concerns the one runtime, whose UID the forwarder looks up when it sends.
  runtimeOf: () => ({ name: RUNTIME_NAME, uid: '' }),
  fingerprint: (cm) =>
    createHash('sha256')
      .update(JSON.stringify(cm.data ?? {}))
      .digest('hex'),
};

/**
 * The configuration's resourceVersion as the forwarder last saw it; undefined until its watch has
 * listed, once it is gone, and while its watch fails.
 */
export class ConfigurationVersion {
  private current: string | undefined;

  get version(): string | undefined {
    return this.current;
  }

  /** Every event counts, not only those that move the data: a step compares versions, not contents. */
  seen(cm: { readonly metadata: { readonly resourceVersion: string } } | undefined): void {
    this.current = cm?.metadata.resourceVersion;
  }
}
