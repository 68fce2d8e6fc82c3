// What a forwarder is given, and what it counts.
import type { KubePort } from '../kube/port.ts';
import type { Logger } from '../observability/log.ts';
import type { QueueProducer } from '../queue/port.ts';
import type { StepRow } from '../steps/table.ts';
import type { Checkpoint } from './checkpoint.ts';
import type { ConfigurationVersion } from './configurationWatch.ts';
import type { GoneRuntimes } from './goneRuntimes.ts';
import type { WindowActivity } from './windowActivity.ts';

export interface ForwarderStats {
  relists: number;
  /** Changes sent: one message per woken step for each. */
  enqueued: number;
  skipped: number;
  /** Changes folded into one already waiting to be sent for the same runtime. */
  coalesced: number;
  watches: number;
}

export interface ForwarderOptions {
  readonly kube: KubePort;
  readonly producer: QueueProducer;
  readonly log: Logger;
  readonly checkpoint: Checkpoint;
  readonly watchTimeoutSeconds?: number;
  /** The steps a change wakes come from this table. */
  readonly table?: readonly StepRow[];
  /** The shortest interval between two messages for one runtime; 0 sends each change at once. */
  readonly coalesceMs?: number;
  readonly now?: () => number;
  /** Leave after a watch pass once the window has sent nothing for `afterMs`; unset, watch until stop(). */
  readonly quiet?: { readonly activity: WindowActivity; readonly afterMs: number };
  /** The further cluster of a fleet this forwarder watches (ADR 0019); its messages name it. */
  readonly cluster?: string;
  /** What an earlier window knew of each object, so a warm function takes no replay for news. */
  readonly seen?: Map<string, string>;
  /** Runtimes seen deleted, shared by every watch of the process: changes concerning them are not sent. */
  readonly gone?: GoneRuntimes;
  /** The configuration's version, kept by its watch and put on every message (configurationWatch.ts). */
  readonly configuration?: ConfigurationVersion;
}
