// Connect and total timeouts for every AWS request the functions make, so a missing VPC
// endpoint or NAT route fails a request in seconds instead of holding the function to its
// Lambda timeout. The SDK retries a timed-out request within its own retry budget.

/** The connection (TLS included) is made within this. */
export const AWS_CONNECT_TIMEOUT_MS = 3_000;
/** The whole answer arrives within this. */
export const AWS_REQUEST_TIMEOUT_MS = 10_000;

/** The options each SDK client is built with. */
export function awsClientOptions(): { requestHandler: { connectionTimeout: number; requestTimeout: number } } {
  return { requestHandler: { connectionTimeout: AWS_CONNECT_TIMEOUT_MS, requestTimeout: AWS_REQUEST_TIMEOUT_MS } };
}
