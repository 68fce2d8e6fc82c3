// What the queue does with a delivery the dispatcher could not handle. Every failure a step
// reports is retried by the dispatcher itself, with a new message, for as long as it lasts, so
// the received message is always acknowledged. A delivery fails (is redelivered) only when the
// message cannot be processed at all (malformed, or for a step the function does not run) or
// its function died under it; after MAX_RECEIVES such deliveries the queue dead-letters it.
// The embedded queue uses this number, and each SQS queue's redrive policy (`maxReceiveCount`
// in serverless.yml) must equal it: the template test checks that.

/** Failed deliveries of one message before the queue moves it to the dead-letter queue. */
export const MAX_RECEIVES = 5;

/**
 * A lost write race is re-run at once in the same delivery (re-read, re-decide) this many
 * times before it is handed to an immediate retry message; neither waits for a redelivery.
 */
export const CONFLICT_RERUNS = 3;
/** The spread of the random wait before each rerun after a conflict, times the rerun's number. */
export const CONFLICT_SPREAD_MS = 150;
