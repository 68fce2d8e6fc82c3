// Middy middleware for every function: puts the invocation's Lambda context (function name,
// request ID, cold start, …) on each log line written while it runs. The event itself is never
// logged, whatever the environment asks.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { powertoolsLogger } from './log.ts';

export function lambdaLogContext(): ReturnType<typeof injectLambdaContext> {
  return injectLambdaContext(powertoolsLogger(), { logEvent: false });
}
