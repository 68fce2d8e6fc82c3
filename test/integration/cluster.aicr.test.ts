// The real AICR CLI runs as a Job in the test cluster: the real Job controller creates the
// Pod, the real scheduler binds it, the process node runs the built aicr binary with the
// Pod's ServiceAccount token, and the recipe lands in a ConfigMap through the API server.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import type { V1Pod } from '@kubernetes/client-node';
import { NAMESPACES } from '../../shared/api/constants.ts';
import { batch, core, jobCondition, jobPods, jobReaches, oneShotJob, serviceAccountWith } from '../helpers/cluster.ts';
import { uniqueName } from '../../harness/env.ts';
import { aicrDataArgs } from '../helpers/aicrData.ts';
import { ensureCrds } from '../../harness/runtime.ts';

const run = promisify(execFile);
const NAMESPACE = NAMESPACES.jobs;
const IMAGE = 'ghcr.io/nvidia/aicr:v0.11.1';
const RECIPE_ARGS = ['recipe', '--service', 'eks', '--accelerator', 'h100', '--intent', 'training', '--os', 'ubuntu'];

function aicrBin(): string {
  const bin = process.env['TESTENV_AICR_BIN'];
  if (!bin) throw new Error('TESTENV_AICR_BIN is not set: run the test environment (test/env/up.sh)');
  return bin;
}

/** The recipe without the moment it was made, which differs between any two runs. */
function comparable(text: string): unknown {
  const doc = parse(text) as { metadata?: Record<string, unknown> };
  if (doc.metadata) delete doc.metadata['timestamp'];
  return doc;
}

function assertRanTheBuiltBinary(pod: V1Pod | undefined): void {
  const status = pod?.status ?? {};
  assert.equal(status.phase, 'Succeeded');
  assert.ok(pod?.spec?.nodeName, 'the scheduler bound the Pod to a Node');
  const [container] = status.containerStatuses ?? [];
  const digest = createHash('sha256').update(readFileSync(aicrBin())).digest('hex');
  assert.equal(container?.imageID, `ghcr.io/nvidia/aicr@sha256:${digest}`);
  const terminated = container?.state?.terminated;
  assert.deepEqual([terminated?.exitCode, terminated?.reason], [0, 'Completed']);
}

// The Job namespace is the chart's: installed before a test makes its ServiceAccount there.
before(async () => {
  await ensureCrds();
});

test('a Job running aicr recipe completes through the Job controller and writes the same recipe the binary prints', async () => {
  await serviceAccountWith(NAMESPACE, 'aicr-recipe', [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'update', 'patch'] },
  ]);
  const name = uniqueName('recipe');
  await batch().createNamespacedJob({
    namespace: NAMESPACE,
    body: oneShotJob(name, {
      serviceAccountName: 'aicr-recipe',
      containers: [
        {
          name: 'aicr',
          image: IMAGE,
          args: [...RECIPE_ARGS, '-o', `cm://${NAMESPACE}/${name}`],
          terminationMessagePolicy: 'FallbackToLogsOnError',
        },
      ],
    }),
  });
  const job = await jobReaches(NAMESPACE, name, 'Complete', 120_000);
  assert.equal(job?.status?.succeeded, 1);
  assert.equal(jobCondition(job, 'Failed'), undefined);

  assertRanTheBuiltBinary((await jobPods(NAMESPACE, name))[0]);

  const data = (await core().readNamespacedConfigMap({ name, namespace: NAMESPACE })).data ?? {};
  const key = Object.keys(data).find((k) => k.endsWith('.yaml'));
  assert.ok(key, `the ConfigMap holds a YAML document (keys: ${Object.keys(data).join(', ')})`);
  const { stdout } = await run(aicrBin(), [...RECIPE_ARGS, ...aicrDataArgs()], { maxBuffer: 16 * 1024 * 1024 });
  const direct = comparable(stdout);
  assert.deepEqual(comparable(data[key] ?? ''), direct);
  assert.equal((direct as { kind?: string }).kind, 'RecipeResult');
});
