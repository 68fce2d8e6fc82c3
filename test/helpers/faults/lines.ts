// What the fault harness prints, so a test tells its faults from any other end of the process.
/** Printed for each write once it is answered; the crash counts these. */
export const WRITE_LINE = 'FAULT HARNESS: write';
/**
 * Printed for each write before it is sent, so a test can tell which process wrote what: the API
 * server may take a write whose answer reaches a process already killed after another one.
 */
export const SEND_LINE = 'FAULT HARNESS: sending';
/** Printed just before the harness kills its own process. */
export const CRASH_LINE = 'FAULT HARNESS: crash after write';
/** Printed for each message the harness has handled twice. */
export const DUPLICATE_LINE = 'FAULT HARNESS: message handled again';
/** Printed for each write the harness answered 409 Conflict instead of sending it. */
export const CONFLICT_LINE = 'FAULT HARNESS: answered 409 to';
/** Printed for each request the harness answered 429 Too Many Requests instead of sending it. */
export const THROTTLE_LINE = 'FAULT HARNESS: answered 429 to';
/** Printed for each watch the harness ended with 410 Gone, as an API server whose history moved on does. */
export const GONE_LINE = 'FAULT HARNESS: watch ended 410 Gone';
/** Printed for each message the harness held back, so messages sent after it may be handled before it. */
export const DELAY_LINE = 'FAULT HARNESS: message held back';
