// The repositories resolution makes sure of before it pushes (aws mode): the bundle's, each
// upstream chart's and each manifests chart's, all `<registry.repository>/<name>`, named as ECR
// names them (without the registry host); a refusal to create one stalls with what to grant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RegistryUnavailableError } from '../../shared/errors.ts';
import type { Release } from '../../shared/plans/release.ts';
import { RepositoryCreationRefusedError, createsRepositories } from '../../shared/registry/ecrRepositories.ts';
import { chartNames, ensureRepositories, repositoriesUnder } from '../../shared/steps/resolve/repositories.ts';

const prefix = '123456789012.dkr.ecr.us-east-1.amazonaws.com/team/aicr';
const releases = [
  {
    name: 'gpu-operator',
    chart: { chart: 'gpu-operator', version: 'v25.3.0' },
    manifests: { chart: 'gpu-operator-manifests', version: '0.1.0' },
  },
  { name: 'network-operator', chart: { chart: 'network-operator', version: '25.1.0' } },
  { name: 'extras', manifests: { chart: 'extras-manifests', version: '0.1.0' } },
] as unknown as Release[];

test('REG-2 every chart of the plan is one repository under the prefix, without the host', () => {
  assert.deepEqual(repositoriesUnder(prefix, chartNames(releases)), [
    'team/aicr/gpu-operator',
    'team/aicr/gpu-operator-manifests',
    'team/aicr/network-operator',
    'team/aicr/extras-manifests',
  ]);
});

test('REG-2 each missing repository is created once; a refusal stalls naming the right and the repository; an ECR outage retries', async () => {
  const created: string[] = [];
  assert.deepEqual(await ensureRepositories((r) => (created.push(r), Promise.resolve()), prefix, ['aicr-bundle']), {
    ok: true,
  });
  assert.deepEqual(created, ['team/aicr/aicr-bundle']);
  const refused = await ensureRepositories(
    (r) => Promise.reject(new RepositoryCreationRefusedError(r)),
    prefix,
    chartNames(releases),
  );
  assert.equal(refused.ok, false);
  assert.ok(!refused.ok && refused.reason === 'Unauthorized' && !refused.retry);
  assert.match(
    refused.ok ? '' : refused.message,
    /ecr refused to create repository team\/aicr\/gpu-operator .*ecr:CreateRepository.*createRepositories=true.*request a snapshot$/,
  );
  const down = await ensureRepositories(
    () => Promise.reject(new RegistryUnavailableError('creating ecr repository x failed (TimeoutError)')),
    prefix,
    ['aicr-bundle'],
  );
  assert.ok(!down.ok && down.retry && down.reason === 'Resolving' && down.message.startsWith('[SERVICE_UNAVAILABLE]'));
});

test('repository creation is on unless the deployment turns it off', () => {
  assert.equal(createsRepositories({}), true);
  assert.equal(createsRepositories({ AICR_ECR_CREATE_REPOSITORIES: 'true' }), true);
  assert.equal(createsRepositories({ AICR_ECR_CREATE_REPOSITORIES: 'false' }), false);
});
