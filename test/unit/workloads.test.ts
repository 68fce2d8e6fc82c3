// spec.workloads as the rollout step and AICR read it (GPU-1): which releases disrupt GPU Nodes,
// which work is protected, and the selector AICR's bundle is given so its node customizations do
// not evict that work either.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderArgs, workloadSelectorTerms } from '../../shared/aicr/renderStage.ts';
import { ClusterRuntimeSpecSchema } from '../../shared/api/clusterRuntime.ts';
import { DISRUPTIVE_COMPONENTS } from '../../shared/api/workloads.ts';
import { disrupts, readGuard } from '../../shared/rollout/rules/workloadGuard.ts';

test('GPU-1 the driver, GPU operator, network operator and node customizations disrupt GPU Nodes by default; a person adds more; nothing waits until some work is protected', () => {
  assert.deepEqual(
    [...DISRUPTIVE_COMPONENTS],
    ['gpu-operator', 'network-operator', 'nvidia-dra-driver-gpu', 'skyhook-customizations'],
  );
  const guard = readGuard({ workloads: { selector: 'team=ml', disruptiveReleases: ['my-driver'] } });
  assert.notEqual(typeof guard, 'string');
  for (const r of ['gpu-operator', 'network-operator', 'my-driver']) assert.equal(disrupts(guard, r), true, r);
  assert.equal(disrupts(guard, 'cert-manager'), false);
  assert.equal(typeof guard === 'string' ? 0 : guard.maxWaitMs, 24 * 3_600_000, 'maxWait defaults to 24h');
  assert.equal(
    readGuard({ workloads: { disruptiveReleases: ['my-driver'] } }),
    'none',
    'no selector and no priority classes: nothing is protected',
  );
  assert.equal(readGuard({}), 'none');
  assert.equal(disrupts('none', 'gpu-operator'), false);
  // A guard that does not validate holds the default disruptive releases: the safe side.
  assert.equal(readGuard({ workloads: { selector: 'team in (ml)' } }), 'unreadable');
  assert.equal(disrupts('unreadable', 'gpu-operator'), true);
  assert.equal(disrupts('unreadable', 'cert-manager'), false);
});

test('GPU-1 a selector that is not equality terms, or a maxWait out of bounds, is refused naming the field', () => {
  const bad = ClusterRuntimeSpecSchema.safeParse({
    aicrVersion: 'v0.11.1',
    workloads: { selector: 'team in (ml)', maxWait: '5s' },
  });
  assert.equal(bad.success, false);
  const paths = (bad.error?.issues ?? []).map((i) => i.path.join('.')).sort();
  assert.deepEqual(paths, ['workloads.maxWait', 'workloads.selector']);
  assert.ok(
    ClusterRuntimeSpecSchema.safeParse({
      aicrVersion: 'v0.11.1',
      workloads: {
        selector: 'team=ml,aicr.run/protected,tier!=batch',
        priorityClasses: ['training-critical'],
        maxWait: '6h',
      },
    }).success,
  );
});

test("GPU-1 AICR bundles get the selector's key=value terms as --workload-selector, and nothing when no selector is set", () => {
  assert.deepEqual(workloadSelectorTerms('team=ml,aicr.run/protected,tier!=batch,app==train'), [
    'team=ml',
    'app=train',
  ]);
  assert.deepEqual(workloadSelectorTerms(undefined), []);
  const inputs = {
    runtimeUID: 'u',
    version: 'v0.11.1',
    image: 'i',
    recipe: { configMap: 'c', digest: 'd' },
    sets: ['--set', 'a=b'],
    repository: 'r/aicr',
    plainHTTP: false,
  };
  const args = renderArgs({ ...inputs, workloadSelector: ['team=ml', 'app=train'] }, 'h');
  assert.deepEqual(args.slice(args.indexOf('--workload-selector'), args.indexOf('--set')), [
    '--workload-selector',
    'team=ml',
    '--workload-selector',
    'app=train',
  ]);
  assert.equal(renderArgs(inputs, 'h').includes('--workload-selector'), false);
});
