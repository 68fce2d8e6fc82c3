import type { DeadLetter, OutgoingMessage, QueueProducer, SendResult } from '../../shared/queue/port.ts';

/** A producer that only records what a step asked the queue to do, for tests to read. */
export class RecordingProducer implements QueueProducer {
  readonly sent: OutgoingMessage[] = [];
  readonly dead: DeadLetter[] = [];

  send(msg: OutgoingMessage): Promise<SendResult> {
    this.sent.push(msg);
    return Promise.resolve({ deduplicated: false });
  }

  deadLetter(msg: DeadLetter): Promise<void> {
    this.dead.push(msg);
    return Promise.resolve();
  }
}
