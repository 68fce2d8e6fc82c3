// Lambda: the rollout queue's steps (see shared/steps/table.ts).
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { stepDeps } from '../shared/aws/stepDeps.ts';
import { createStepHandler } from '../shared/aws/stepHandler.ts';
import { runRollout } from '../shared/steps/rollout/index.ts';
import { lambdaLogContext } from '../shared/observability/lambda.ts';

export const handler = middy<SQSEvent, SQSBatchResponse>().use(lambdaLogContext()).handler(createStepHandler({ rollout: runRollout }, stepDeps('rollout')));
