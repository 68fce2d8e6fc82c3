// The validator image pins of this test environment, as an operator writes them in
// aicr.validatorImages: AICR's deployment validator at the tag AICR names, pinned to the digest
// the process node reports for it (its program's sha256, test/env/node/images.ts).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEPLOYMENT_VALIDATOR_IMAGE } from './imageNames.ts';

let digest: string | undefined;

/** The digest the process node reports for the deployment validator image. */
export function validatorDigest(): string {
  const bin = process.env['TESTENV_AICR_BIN'];
  if (!bin) throw new Error('TESTENV_AICR_BIN is not set: source test/env/.state/env');
  // Memoized: most test files check the chart's install input, and the program is tens of MB.
  digest ??= `sha256:${createHash('sha256')
    .update(readFileSync(join(dirname(bin), 'validators', 'deployment')))
    .digest('hex')}`;
  return digest;
}

/** aicr.validatorImages as this environment's chart values set it. */
export function validatorPins(): Record<string, string> {
  const repository = DEPLOYMENT_VALIDATOR_IMAGE.replace(/:[^:/]+$/, '');
  return { [DEPLOYMENT_VALIDATOR_IMAGE]: `${repository}@${validatorDigest()}` };
}
