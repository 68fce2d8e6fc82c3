// Lambda: the drift-check queue's steps (see shared/steps/table.ts).
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { stepDeps } from '../shared/aws/stepDeps.ts';
import { createStepHandler } from '../shared/aws/stepHandler.ts';
import { runDriftCheck } from '../shared/steps/driftCheck/index.ts';
import { lambdaLogContext } from '../shared/observability/lambda.ts';

export const handler = middy<SQSEvent, SQSBatchResponse>().use(lambdaLogContext()).handler(createStepHandler({ 'drift-check': runDriftCheck }, stepDeps('drift-check')));
