// An invalid spec is refused by the API server itself (OpenAPI + CEL), naming the field,
// and the control plane's zod schema names the same field (test/unit/api.schema.test.ts).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, KINDS } from '../../shared/api/constants.ts';
import { INVALID_SPECS } from '../fixtures/invalidSpecs.ts';
import { adminKubeConfig } from '../helpers/env.ts';
import { deleteRuntime, ensureCrds, getRuntime, kubectl, runtimeManifest } from '../helpers/runtime.ts';

before(async () => {
  await ensureCrds();
  await deleteRuntime();
});

test('each invalid spec is refused by the API server with the field path in the message', async () => {
  const co = adminKubeConfig().makeApiClient(CustomObjectsApi);
  for (const c of INVALID_SPECS) {
    const body = runtimeManifest(c.spec, c.name);
    await assert.rejects(
      co.createClusterCustomObject({ group: API_GROUP, version: API_VERSION, plural: KINDS.clusterRuntime.plural, body }),
      (err: { code?: number; body?: string }) => {
        assert.equal(err.code, 422, c.title);
        const message = (JSON.parse(err.body ?? '{}') as { message?: string }).message ?? '';
        assert.ok(message.includes(`${c.field}:`), `${c.title}: "${message}" names ${c.field}`);
        return true;
      },
    );
  }
  assert.equal(await getRuntime(), undefined, 'nothing was stored');
});

test('kubectl apply of a runtime with another name is refused naming metadata.name', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'aicr-')), 'runtime.json');
  writeFileSync(file, JSON.stringify(runtimeManifest({ aicrVersion: 'v1.1.0' }, 'gpu')));
  await assert.rejects(kubectl('apply', '-f', file), (err: { stderr?: string }) => /metadata\.name: Invalid value/.test(err.stderr ?? ''));
});
