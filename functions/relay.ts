// Lambda: forwards due messages from the delay queue to their step's FIFO queue.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { relayDeps } from '../shared/aws/relayDeps.ts';
import { createRelayHandler } from '../shared/aws/relay.ts';
import { lambdaLogContext } from '../shared/observability/lambda.ts';

export const handler = middy<SQSEvent, SQSBatchResponse>()
  .use(lambdaLogContext())
  .handler(createRelayHandler(relayDeps));
