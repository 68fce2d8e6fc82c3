// The drift-check figures alone (`node --import tsx bench/driftOnly.ts` against a running test
// environment), without the rest of `npm run bench`.
import { driftSummary, measureDrift } from './drift.ts';

console.log(driftSummary(await measureDrift()));
