// Lambda: the token-refresh queue's steps (see shared/steps/table.ts).
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { stepDeps } from '../shared/aws/stepDeps.ts';
import { createStepHandler } from '../shared/aws/stepHandler.ts';
import { runTokenRefresh } from '../shared/steps/tokenRefresh/index.ts';
import { lambdaLogContext } from '../shared/observability/lambda.ts';

export const handler = middy<SQSEvent, SQSBatchResponse>().use(lambdaLogContext()).handler(createStepHandler({ 'token-refresh': runTokenRefresh }, stepDeps('token-refresh')));
