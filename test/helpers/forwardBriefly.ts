// Runs one forwarder over a test's port for a short while and returns the work items it sent:
// the forwarder unit tests' common frame (the whole step table, a captured log, a memory
// checkpoint), with what each test varies passed in.
import { MemoryCheckpoint } from '../../shared/forwarder/checkpoint.ts';
import { Forwarder, type ForwarderOptions } from '../../shared/forwarder/forwarder.ts';
import type { Watchable, WatchedKind } from '../../shared/forwarder/watchedKind.ts';
import { decodeWorkItem, type WorkItem } from '../../shared/queue/workItem.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { captureLogger } from '../../harness/logs.ts';
import { RecordingProducer } from './recordingProducer.ts';

type Varied = Pick<ForwarderOptions, 'kube'> &
  Partial<Pick<ForwarderOptions, 'checkpoint' | 'coalesceMs' | 'gone' | 'configuration'>>;

export async function forwardBriefly(watched: WatchedKind<Watchable>, varied: Varied, forMs = 60): Promise<WorkItem[]> {
  const producer = new RecordingProducer();
  const fwd = new Forwarder(
    { producer, table: STEP_TABLE, log: captureLogger().log, checkpoint: new MemoryCheckpoint(), ...varied },
    watched,
  );
  const running = fwd.run();
  await new Promise((r) => setTimeout(r, forMs));
  fwd.stop();
  await running;
  return producer.sent.map((m) => decodeWorkItem(m.body));
}
