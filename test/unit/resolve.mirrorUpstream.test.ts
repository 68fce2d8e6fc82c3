// How the resolve step turns a failed copy of an upstream chart into what the runtime shows,
// and which charts it copies from where (the recipe's source for each release's chart).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import {
  ChartSourceError,
  RegistryRefusedError,
  RegistryUnavailableError,
  TransientError,
} from '../../shared/errors.ts';
import type { Release } from '../../shared/plans/release.ts';
import { copyFailed, upstreamCopies } from '../../shared/steps/resolve/mirrorUpstream.ts';

const REPO = 'registry.example:5000/aicr';
const release = (name: string, chart?: string): Release => ({
  name,
  namespace: name,
  order: 0,
  values: {},
  dependsOn: [],
  manual: false,
  steps: [],
  ...(chart ? { chart: { repoURL: REPO, chart, version: 'v1.0.0' } } : {}),
});
const RECIPE = stringify({
  kind: 'RecipeResult',
  componentRefs: [
    { name: 'cert-manager', chart: 'cert-manager', source: 'https://charts.jetstack.io', version: 'v1.0.0' },
    { name: 'extras', namespace: 'extras' },
  ],
  deploymentOrder: ['cert-manager', 'extras'],
});
const copy = upstreamCopies(RECIPE, [release('cert-manager', 'cert-manager'), release('extras')], REPO);

test('each release with a chart is copied from the source its recipe names to <repository>/<chart>:<version>', () => {
  assert.deepEqual(copy, [
    {
      component: 'cert-manager',
      up: { source: 'https://charts.jetstack.io', chart: 'cert-manager', version: 'v1.0.0' },
      target: `${REPO}/cert-manager:v1.0.0`,
    },
  ]);
});

test('a chart the repository lacks is ChartUnavailable naming the component, repository, chart, version and the fix; not retried', () => {
  const c = copy[0];
  assert.ok(c);
  const out = copyFailed(
    new ChartSourceError('chart repository https://charts.jetstack.io has no chart cert-manager at version v1.0.0'),
    c,
    REPO,
  );
  assert.equal(out.ok, false);
  assert.ok(!out.ok && out.reason === 'ChartUnavailable' && !out.retry);
  assert.match(
    out.message,
    /^component cert-manager: chart repository https:\/\/charts\.jetstack\.io has no chart cert-manager at version v1\.0\.0\. .*request a snapshot$/,
  );
});

test('an unreachable chart repository or registry is Resolving [SERVICE_UNAVAILABLE], retried', () => {
  const c = copy[0];
  assert.ok(c);
  for (const err of [
    new TransientError('chart repository charts.jetstack.io did not answer (index); retrying'),
    new RegistryUnavailableError('registry down'),
  ]) {
    const out = copyFailed(err, c, REPO);
    assert.ok(
      !out.ok &&
        out.reason === 'Resolving' &&
        out.retry &&
        out.message.startsWith(
          `[SERVICE_UNAVAILABLE] mirroring ${REPO}/cert-manager:v1.0.0 from https://charts.jetstack.io: `,
        ),
      JSON.stringify(out),
    );
  }
});

test('a refusal by our registry is Unauthorized naming registry.repository; one by an upstream OCI registry is ChartUnavailable', () => {
  const c = copy[0];
  assert.ok(c);
  const ours = copyFailed(new RegistryRefusedError(403, 'registry.example:5000', 'aicr/cert-manager'), c, REPO);
  assert.ok(!ours.ok && ours.reason === 'Unauthorized' && ours.message.includes(`registry.repository=${REPO}`));
  const theirs = copyFailed(new RegistryRefusedError(401, 'ghcr.io', 'nvidia/cert-manager'), c, REPO);
  assert.ok(!theirs.ok && theirs.reason === 'ChartUnavailable');
  assert.throws(() => copyFailed(new Error('a bug'), c, REPO), /a bug/);
});
