// The Lambda entry of one queue's steps: a FIFO batch in, each record through the same
// dispatcher local mode uses, and a partial batch response out. A record for a step this
// function does not run fails loudly (StepNotRoutedError) and ends dead-lettered.
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { withDeadline } from '../deadline.ts';
import { type DispatchDeps, createDispatcher } from '../steps/dispatch.ts';
import type { StepRunner } from '../look/contract.ts';
import { processFifoBatch } from './fifoBatch.ts';
import { toReceivedMessage } from './records.ts';

export function createStepHandler(
  runners: Readonly<Record<string, StepRunner>>,
  deps: () => DispatchDeps,
): (event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>) => Promise<SQSBatchResponse> {
  const dispatch = createDispatcher(runners);
  return async (event, context) => {
    // Built outside the batch loop: a configuration error fails the invocation loudly instead
    // of hiding as failed records.
    const d = deps();
    // Requests and step starts see the function's deadline, so work left over is handed to a retry, never cut off.
    return await withDeadline(context?.getRemainingTimeInMillis(), () =>
      processFifoBatch(event.Records, async (record) => {
        await dispatch(toReceivedMessage(record), d);
      }),
    );
  };
}
