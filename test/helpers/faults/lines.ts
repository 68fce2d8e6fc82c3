// What the fault harness prints, so a test tells its faults from any other end of the process.
/** Printed just before the harness kills its own process. */
export const CRASH_LINE = 'FAULT HARNESS: crash after write';
/** Printed for each message the harness has handled twice. */
export const DUPLICATE_LINE = 'FAULT HARNESS: message handled again';
