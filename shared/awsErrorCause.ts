// How an AWS call's failure is told in logs and status: by the error's name and HTTP status only,
// since AWS's wording may carry account details.
export function awsErrorCause(err: unknown): string {
  const name = err instanceof Error ? err.name : 'unknown failure';
  const status = (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
  return status === undefined ? name : `${name}, http ${status}`;
}
