// The process node's pure parts: how it names images, expands $(VAR), places mount points
// inside a container's root, and decides a Pod's phase the way a kubelet does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fullReference, lookupImage, defaultImageTable } from '../env/node/images.ts';
import { expand } from '../env/node/containerEnv.ts';
import { resolveInRoot, topSubmounts } from '../env/node/mountScript.ts';
import { type ContainerView, type PodView, phaseOf, pullFailure } from '../env/node/podStatus.ts';

test('image references are completed as the kubelet completes them', () => {
  assert.equal(fullReference('busybox'), 'docker.io/library/busybox:latest');
  assert.equal(fullReference('team/tool:1'), 'docker.io/team/tool:1');
  assert.equal(fullReference('ghcr.io/nvidia/aicr:v0.11.1'), 'ghcr.io/nvidia/aicr:v0.11.1');
  assert.equal(fullReference('localhost:5000/x'), 'localhost:5000/x:latest');
  const table = defaultImageTable('/opt/aicr', '/opt/bin', '/state/test-knobs/upgrade-check.json');
  assert.deepEqual(lookupImage(table, 'ghcr.io/nvidia/aicr:v0.11.1')?.path, ['/opt/aicr']);
  assert.equal(lookupImage(table, 'ghcr.io/nvidia/aicr:latest'), undefined);
});

test("an unknown image first fails to pull, then backs off, in the kubelet's words", () => {
  assert.equal(pullFailure('nope:1', false).waiting?.reason, 'ErrImagePull');
  assert.match(pullFailure('nope:1', false).waiting?.message ?? '', /docker\.io\/library\/nope:1: not found$/);
  assert.equal(pullFailure('nope:1', true).waiting?.reason, 'ImagePullBackOff');
  assert.match(pullFailure('nope:1', true).waiting?.message ?? '', /^Back-off pulling image "nope:1": ErrImagePull: /);
});

test('$(VAR) expands defined variables only, and $$(VAR) stays literal', () => {
  const env = { A: 'x', B: 'y' };
  assert.equal(expand('$(A)-$(B)-$(C)', env), 'x-y-$(C)');
  assert.equal(expand('$$(A)', env), '$(A)');
});

test('mount points follow symbolic links inside the container root, never out of it', () => {
  // /var/run is an absolute link to /run on the machines this runs on; either way the
  // result must be a path without links that starts at the root.
  const resolved = resolveInRoot('/var/run/secrets/kubernetes.io/serviceaccount');
  assert.match(resolved, /^\/(var\/)?run\/secrets\/kubernetes\.io\/serviceaccount$/);
  assert.equal(resolveInRoot('/definitely/not/here'), '/definitely/not/here');
  assert.deepEqual(topSubmounts(['/', '/proc', '/dev', '/dev/shm', '/sys', '/sys/fs/cgroup']), [
    '/proc',
    '/dev',
    '/sys',
  ]);
});

const view = (state: ContainerView['state']): ContainerView => ({
  name: 'c',
  image: 'i',
  imageID: '',
  containerID: '',
  state,
  restartCount: 0,
});
const pod = (main: ContainerView[], init: ContainerView[] = []): PodView => ({
  init,
  main,
  startTime: new Date(0),
  prepared: true,
});
const exit = (exitCode: number): ContainerView['state'] => ({ terminated: { exitCode } });

test('the phase follows the restart policy as a kubelet decides it', () => {
  assert.equal(phaseOf(pod([view(exit(0))]), 'Never'), 'Succeeded');
  assert.equal(phaseOf(pod([view(exit(6))]), 'Never'), 'Failed');
  assert.equal(phaseOf(pod([view(exit(6))]), 'OnFailure'), 'Pending');
  assert.equal(phaseOf(pod([view({ running: {} })]), 'Never'), 'Running');
  assert.equal(phaseOf(pod([view({ waiting: { reason: 'PodInitializing' } })], [view(exit(1))]), 'Never'), 'Failed');
  assert.equal(
    phaseOf({ ...pod([view({ running: {} })]), failure: { reason: 'DeadlineExceeded', message: 'm' } }, 'Never'),
    'Failed',
  );
});

test('an image directory a volume would hide is bound again over it; others are left alone', async () => {
  const { imageDirsShadowed } = await import('../env/node/launch.ts');
  const volumes = [{ source: '/var/pods/x/tmp', target: '/tmp', readOnly: false }];
  assert.deepEqual(imageDirsShadowed(['/tmp/cache/aicr', '/root/.cache/aicr', '/tmpfiles'], volumes), [
    { source: '/tmp/cache/aicr', target: '/tmp/cache/aicr', readOnly: true },
  ]);
});
