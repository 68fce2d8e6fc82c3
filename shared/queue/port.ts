// The queue port. Two adapters share these semantics: the embedded one (local mode) and SQS
// FIFO (AWS). Messages carry keys, never objects.

export interface OutgoingMessage {
  /** Which step runs it; the step table names the step's queue (in AWS, a FIFO queue and its function). */
  readonly step: string;
  /** Ordering and exclusivity unit: one group per runtime, never two of its messages at once. */
  readonly group: string;
  /** Messages with an ID already seen within the deduplication window are dropped. */
  readonly dedupId: string;
  readonly body: string;
  /** Deliver no sooner than this; how timers (backoff, deadlines) are made. */
  readonly delayMs?: number;
}

export interface ReceivedMessage {
  readonly id: string;
  readonly group: string;
  readonly dedupId: string;
  readonly body: string;
  /** 1 on first delivery. */
  readonly receiveCount: number;
  readonly sentAt: number;
}

export interface SendResult {
  readonly deduplicated: boolean;
}

export interface QueueProducer {
  send(msg: OutgoingMessage): Promise<SendResult>;
  /**
   * Moves work to the step queue's dead-letter queue, where operators (and the dead-letter alarm)
   * find it. The dispatcher dead-letters nothing itself (shared/queue/deliveryPolicy.ts).
   */
  deadLetter(msg: DeadLetter): Promise<void>;
}

export interface DeadLetter {
  readonly step: string;
  readonly group: string;
  readonly dedupId: string;
  readonly body: string;
}

/** Resolving acknowledges the message; throwing makes it due for redelivery. */
export type MessageHandler = (msg: ReceivedMessage) => Promise<void>;
