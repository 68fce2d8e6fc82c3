// Lambda: one watch window of the forwarder, started on a schedule.
import middy from '@middy/core';
import { forwarderDeps } from '../shared/aws/forwarderDeps.ts';
import { createForwarderHandler, type WindowResult } from '../shared/aws/forwarderWindow.ts';
import { lambdaLogContext } from '../shared/observability/lambda.ts';

export const handler = middy<unknown, WindowResult>()
  .use(lambdaLogContext())
  .handler(createForwarderHandler(forwarderDeps));
