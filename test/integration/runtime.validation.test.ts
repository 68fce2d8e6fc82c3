// An invalid spec is refused by the API server itself (OpenAPI + CEL), naming the field with
// the same friendly message the control plane's zod schema gives (test/unit/api.schema.test.ts);
// a spec at the edge of every bound is accepted.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, KINDS } from '../../shared/api/constants.ts';
import { FOUR_10KB_KEYS, INVALID_SPECS } from '../fixtures/invalidSpecs.ts';
import { VALID_SPECS } from '../fixtures/validSpecs.ts';
import { COMPONENT_NAME } from '../../shared/api/names.ts';
import { dryRunner } from '../helpers/dryRun.ts';
import { adminKubeConfig } from '../../harness/env.ts';
import { deleteRuntime, ensureCrds, getRuntime, kubectl, runtimeManifest } from '../../harness/runtime.ts';

before(async () => {
  await ensureCrds();
  await deleteRuntime();
});

test('each invalid spec is refused by the API server with the field path in the message', async () => {
  const co = adminKubeConfig().makeApiClient(CustomObjectsApi);
  for (const c of INVALID_SPECS) {
    const body = runtimeManifest(c.spec, c.name);
    await assert.rejects(
      co.createClusterCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        plural: KINDS.clusterRuntime.plural,
        body,
      }),
      (err: { code?: number; body?: string }) => {
        assert.equal(err.code, 422, c.title);
        const message = (JSON.parse(err.body ?? '{}') as { message?: string }).message ?? '';
        assert.ok(message.includes(`${c.field}:`), `${c.title}: "${message}" names ${c.field}`);
        if (c.message !== undefined)
          assert.ok(
            message.includes(`${c.field}: Invalid value: `) && message.includes(c.message),
            `${c.title}: "${message}" says "${c.message}"`,
          );
        assert.doesNotMatch(message, /should match/, `${c.title}: no raw regex`);
        return true;
      },
    );
  }
  assert.equal(await getRuntime(), undefined, 'nothing was stored');
});

test('specs at the edge of every bound are accepted by the API server', async () => {
  const api = dryRunner();
  for (const c of VALID_SPECS) {
    const verdict = await api.verdict('clusterRuntime', 'cluster', c.spec);
    assert.ok(verdict.accepted, `${c.title}: ${verdict.message}`);
  }
});

test('the four-10-KB-keys spec is refused by the API server with a short message that repeats no key', async () => {
  const verdict = await dryRunner().verdict('clusterRuntime', 'cluster', FOUR_10KB_KEYS);
  assert.equal(verdict.accepted, false);
  assert.ok(
    verdict.message.includes(`spec.components: Invalid value: "object": ${COMPONENT_NAME.message}`),
    verdict.message,
  );
  assert.ok(
    verdict.message.length < 512 && !verdict.message.includes('aaaa'),
    `message of ${verdict.message.length} characters`,
  );
});

test('kubectl apply of a runtime with another name is refused naming metadata.name', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'aicr-')), 'runtime.json');
  writeFileSync(file, JSON.stringify(runtimeManifest({ aicrVersion: 'v0.11.1' }, 'gpu')));
  await assert.rejects(kubectl('apply', '-f', file), (err: { stderr?: string }) =>
    /metadata\.name: Invalid value/.test(err.stderr ?? ''),
  );
});
