// Connect and total timeouts for every AWS request the functions make, so a missing VPC
// endpoint or NAT route fails a request in seconds instead of holding the function to its
// Lambda timeout. The SDK retries a timed-out attempt, but each attempt's total timeout is cut
// short near the invocation's deadline and no attempt starts when too little is left, so the
// retries together never outlast the function: the caller gets a DeadlineError in time.
import type { HttpHandler, HttpHandlerExtensionConfiguration } from '@smithy/protocol-http';
import { remainingMs } from './deadline.ts';
import { DeadlineError } from './errors.ts';

/** The TCP connection is made within this (the SDK's connect timeout stops at TCP; TLS counts toward the total). */
export const AWS_CONNECT_TIMEOUT_MS = 3_000;
/** One attempt's whole answer arrives within this. */
export const AWS_REQUEST_TIMEOUT_MS = 10_000;
/** Attempts per call, the first included: the SDK's default, stated because it bounds a call outside a deadline. */
export const AWS_MAX_ATTEMPTS = 3;

/**
 * An AWS attempt ends at least this long before the invocation's deadline. Unlike a Kubernetes or
 * registry request it may run into DEADLINE_RESERVE_MS: the reserve is kept for sending the retry
 * message, which is itself an AWS request; this margin is for returning and flushing the logs.
 */
export const AWS_END_MARGIN_MS = 1_000;

/** One attempt's total timeout, or a DeadlineError when the invocation has too little left to start it. */
export function attemptTimeoutMs(): number {
  const left = remainingMs();
  const ms = left === undefined ? AWS_REQUEST_TIMEOUT_MS : Math.min(AWS_REQUEST_TIMEOUT_MS, left - AWS_END_MARGIN_MS);
  if (ms <= 0) throw new DeadlineError('too little time left in this invocation for an aws request; handed to a retry');
  return ms;
}

/** The SDK's own handler, with each attempt's total timeout taken from the time the invocation has left. */
function boundedByDeadline(inner: HttpHandler): HttpHandler {
  return {
    ...(inner.metadata === undefined ? {} : { metadata: inner.metadata }),
    destroy: () => inner.destroy?.(),
    handle: async (request, options) => inner.handle(request, { ...options, requestTimeout: attemptTimeoutMs() }),
    updateHttpClientConfig: (key, value) => inner.updateHttpClientConfig(key, value),
    httpHandlerConfigs: () => inner.httpHandlerConfigs(),
  };
}

/** A client extension: the one place the SDK lets a constructor option reach every attempt. */
const deadlineBound = {
  configure(config: HttpHandlerExtensionConfiguration): void {
    config.setHttpHandler(boundedByDeadline(config.httpHandler()));
  },
};

export interface AwsClientOptions {
  maxAttempts: number;
  requestHandler: { connectionTimeout: number; requestTimeout: number; throwOnRequestTimeout: boolean };
  extensions: (typeof deadlineBound)[];
}

/** The options each SDK client is built with. */
export function awsClientOptions(): AwsClientOptions {
  return {
    maxAttempts: AWS_MAX_ATTEMPTS,
    // Without throwOnRequestTimeout the SDK only logs a warning when requestTimeout passes.
    requestHandler: {
      connectionTimeout: AWS_CONNECT_TIMEOUT_MS,
      requestTimeout: AWS_REQUEST_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    },
    extensions: [deadlineBound],
  };
}
