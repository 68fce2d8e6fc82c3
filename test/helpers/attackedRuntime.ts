// The runtime the security files attack: the test configuration with AICR's validators pinned,
// the registry's Secrets, the test users granted, and a ClusterRuntime whose UID the attacks
// forge or borrow. Registers its own set-up and clean-up with node:test.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { applyConfiguration, ensureRegistrySecrets, testConfiguration } from '../../harness/configuration.ts';
import { grantUsers } from '../../harness/rollouts.ts';
import { createRuntime, deleteRuntime, ensureCrds } from '../../harness/runtime.ts';
import { validatorPins } from '../../harness/validatorPins.ts';

export const attackedConfiguration = (): Record<string, unknown> => ({
  ...testConfiguration(),
  aicr: { ...(testConfiguration()['aicr'] as object), validatorImages: validatorPins() },
});

/** Sets the runtime up before the file's tests and removes it after; returns its UID once set up. */
export function attackedRuntime(): () => string {
  let runtimeUID = '';
  before(async () => {
    await ensureCrds();
    await deleteRuntime();
    await applyConfiguration(attackedConfiguration());
    await ensureRegistrySecrets();
    await grantUsers();
    runtimeUID = (await createRuntime({ aicrVersion: 'v0.11.1' })).metadata?.uid ?? '';
    assert.ok(runtimeUID);
  });
  after(async () => {
    await deleteRuntime();
    await applyConfiguration();
  });
  return () => runtimeUID;
}
