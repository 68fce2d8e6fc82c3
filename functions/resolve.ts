// Lambda: the resolve step, fed by the resolve FIFO queue.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { stepDeps } from '../shared/aws/stepDeps.ts';
import { createStepHandler } from '../shared/aws/stepHandler.ts';

export const handler = middy<SQSEvent, SQSBatchResponse>().handler(createStepHandler(stepDeps));
