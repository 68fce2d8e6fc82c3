// The Lambda entry of a step: a FIFO batch in, each record through the same dispatcher local
// mode uses, and a partial batch response out.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type DispatchDeps, handleMessage } from '../steps/dispatch.ts';
import { processFifoBatch } from './fifoBatch.ts';
import { toReceivedMessage } from './records.ts';

export function createStepHandler(deps: () => DispatchDeps): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return async (event) => {
    // Built outside the batch loop: a configuration error fails the invocation loudly instead
    // of hiding as failed records.
    const d = deps();
    return await processFifoBatch(event.Records, async (record) => {
      await handleMessage(toReceivedMessage(record), d);
    });
  };
}
