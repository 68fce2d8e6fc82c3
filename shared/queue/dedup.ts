// The one place deduplication IDs are built. Within the queue's deduplication window a second
// message with the same ID is dropped, so each ID names exactly the work it stands for.

/** A change the forwarder saw: one message per step and resourceVersion. */
export function changeDedupId(runtimeUID: string, step: string, resourceVersion: string): string {
  return `${runtimeUID}/${step}/rv/${resourceVersion}`;
}

/**
 * A retry of a delivered message: keyed by that message's ID, so a duplicate delivery of the same
 * message schedules one retry, while retries of different messages never collide.
 */
export function retryDedupId(runtimeUID: string, step: string, messageId: string): string {
  return `${runtimeUID}/${step}/retry/${messageId}`;
}

/**
 * A look again at a time a step names rather than per handled message: every run that asks for
 * the same time arms one timer, so periodic work does not multiply with the runs that ask for it.
 */
export function timerDedupId(runtimeUID: string, step: string, key: string): string {
  return `${runtimeUID}/${step}/timer/${key}`;
}

/** A look again a step asked for after handling a message: one per handled message. */
export function recheckDedupId(runtimeUID: string, step: string, messageId: string): string {
  return `${runtimeUID}/${step}/recheck/${messageId}`;
}
