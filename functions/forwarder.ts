// Lambda: one watch window of the forwarder, started on a schedule.
import middy from '@middy/core';
import { forwarderDeps } from '../shared/aws/forwarderDeps.ts';
import { createForwarderHandler, type WindowResult } from '../shared/aws/forwarderWindow.ts';

export const handler = middy<unknown, WindowResult>().handler(createForwarderHandler(forwarderDeps));
