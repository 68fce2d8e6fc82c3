// Every unit test file, run in one process. They reach no shared service, and a process of its own
// per file would cost about a second of start-up each, more than most of them take to run. A file
// run alone (node --test test/unit/<name>.test.ts) still gets a process of its own.
import { readdirSync } from 'node:fs';
import { before } from 'node:test';

const here = new URL('./', import.meta.url);
const files = readdirSync(here)
  .filter((name) => name.endsWith('.test.ts'))
  .sort();

// Every file is loaded before the first test starts: compiling a file blocks the event loop, which
// would make the timers of a test running meanwhile fire late.
const loaded = (async (): Promise<void> => {
  for (const file of files) await import(new URL(file, here).href);
})();
before(() => loaded);
