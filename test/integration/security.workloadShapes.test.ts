// The exact shapes of the runs (SEC-1): in each AICR namespace, a Job is admitted only as the
// product builds it, or, in aicr-validation as aicr-validate, as AICR v0.11.1 builds its
// validators (the Job below is the one the test cluster's audit log recorded for a real
// `aicr validate`). Each attempt changes one field of an admitted Job and goes to the real API
// server as the identity that would try it (server-side dry run: nothing runs); each must be
// refused with the policy's own words, and the unchanged Jobs must still be admitted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NAMESPACES } from '../../shared/api/constants.ts';
import { STAGE, jobName } from '../../shared/aicr/stages.ts';
import { runJob } from '../../shared/aicr/jobSpec.ts';
import { snapshotArgs } from '../../shared/aicr/snapshotStage.ts';
import { validationArgs } from '../../shared/rollout/io/validationStage.ts';
import { ConfigurationSchema } from '../../shared/configuration/schema.ts';
import { TEST_AICR_IMAGE } from '../../harness/configuration.ts';
import { validatorPins } from '../../harness/validatorPins.ts';
import { attackedConfiguration, attackedRuntime } from '../helpers/attackedRuntime.ts';
import { type Identity, allowed, createAs, refused, stepIdentity } from '../helpers/impersonate.ts';

const SNAPSHOT = stepIdentity('snapshot');
const RESOLVE = stepIdentity('resolve');
const ROLLOUT = stepIdentity('rollout');
const VALIDATE: Identity = {
  user: `system:serviceaccount:${NAMESPACES.validation}:aicr-validate`,
  groups: ['system:serviceaccounts', `system:serviceaccounts:${NAMESPACES.validation}`],
};
const HASH = 'sec1shape000000';
const runtimeUID = attackedRuntime();

type Pod = Record<string, unknown> & { containers: Container[]; volumes?: Record<string, unknown>[] };
type Container = Record<string, unknown> & {
  args?: string[];
  env?: Record<string, unknown>[];
  volumeMounts?: Record<string, unknown>[];
  securityContext?: Record<string, unknown>;
};
type Edit = (pod: Pod, container: Container) => void;

function withPod(job: Record<string, unknown>, edit: Edit): Record<string, unknown> {
  const copy = structuredClone(job) as { spec: { template: { spec: Pod } } };
  const pod = copy.spec.template.spec;
  const container = pod.containers[0];
  assert.ok(container);
  edit(pod, container);
  return copy as unknown as Record<string, unknown>;
}

/** The Job the control plane builds for `stage` (render: with the registry's push credentials). */
function productJob(stage: (typeof STAGE)[keyof typeof STAGE], edit: Edit = () => undefined): Record<string, unknown> {
  const args =
    stage === STAGE.validation
      ? validationArgs(HASH)
      : stage === STAGE.snapshot
        ? snapshotArgs(HASH)
        : stage === STAGE.render
          ? ['bundle', '-r', `cm://${NAMESPACES.jobs}/r`, '-o', 'oci://registry.example/aicr/aicr-bundle:x']
          : ['recipe', '--snapshot', `cm://${NAMESPACES.jobs}/s`, '-o', `cm://${NAMESPACES.jobs}/o`];
  const job = runJob({
    stage,
    hash: HASH,
    run: 1,
    image: TEST_AICR_IMAGE,
    args,
    runtimeUID: runtimeUID(),
    configuration: ConfigurationSchema.parse(attackedConfiguration()),
    activeDeadlineSeconds: 60,
    ttlSecondsAfterFinished: 60,
    registryAuth: stage === STAGE.render,
  }) as unknown as Record<string, unknown>;
  (job['metadata'] as { name: string }).name = jobName(stage, HASH, 1);
  return withPod(job, edit);
}

/** A validator Job as AICR v0.11.1's `aicr validate` applied it in the test cluster (audit log). */
function aicrValidatorJob(image: string, edit: Edit = () => undefined): Record<string, unknown> {
  const run = '20260101-000000-0123456789abcdef';
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'aicr-operator-health-sec1', namespace: NAMESPACES.validation },
    spec: {
      activeDeadlineSeconds: 120,
      backoffLimit: 0,
      ttlSecondsAfterFinished: 3600,
      template: {
        spec: {
          serviceAccountName: 'aicr-validator',
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 30,
          tolerations: [{ operator: 'Exists' }],
          containers: [
            {
              name: 'validator',
              image,
              imagePullPolicy: 'IfNotPresent',
              args: ['operator-health'],
              env: [
                { name: 'AICR_SNAPSHOT_PATH', value: '/data/snapshot/snapshot.yaml' },
                { name: 'AICR_RECIPE_PATH', value: '/data/recipe/recipe.yaml' },
                { name: 'AICR_VALIDATOR_NAME', value: 'operator-health' },
                { name: 'AICR_VALIDATOR_PHASE', value: 'deployment' },
                { name: 'AICR_RUN_ID', value: run },
                { name: 'AICR_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
              ],
              resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              volumeMounts: [
                { name: 'snapshot', readOnly: true, mountPath: '/data/snapshot' },
                { name: 'recipe', readOnly: true, mountPath: '/data/recipe' },
              ],
            },
          ],
          volumes: [
            { name: 'snapshot', configMap: { name: `aicr-snapshot-${run}` } },
            { name: 'recipe', configMap: { name: `aicr-recipe-${run}` } },
          ],
        },
      },
    },
  };
  return withPod(job, edit);
}

const secretVolume = (pod: Pod, c: Container, secretName: string, path = '/secret'): void => {
  pod.volumes = [...(pod.volumes ?? []), { name: 'stolen', secret: { secretName } }];
  c.volumeMounts = [...(c.volumeMounts ?? []), { name: 'stolen', mountPath: path, readOnly: true }];
};
const hostRoot = (pod: Pod, c: Container): void => {
  pod.volumes = [...(pod.volumes ?? []), { name: 'host', hostPath: { path: '/' } }];
  c.volumeMounts = [...(c.volumeMounts ?? []), { name: 'host', mountPath: '/host', readOnly: true }];
};
const sc = (c: Container): Record<string, unknown> => (c.securityContext ??= {});
const podSc = (pod: Pod): Record<string, unknown> => ((pod['securityContext'] as Record<string, unknown>) ??= {});

const ENV = /set only the environment their program reads/;
const MOUNTS = /mount only .* and no other volume/;
const HOOKS = /no lifecycle hooks, probes, ports, devices/;
const UNPRIVILEGED = /run as user and group 65532, non-root, with the RuntimeDefault seccomp profile/;
const HOST = /use no host namespaces, privilege, added capabilities or host paths/;

test('SEC-1 in aicr-validation the control plane runs aicr validate exactly as it builds it: no command, environment, volume, privilege or host namespace of its own', async () => {
  allowed(await createAs(ROLLOUT, productJob(STAGE.validation)), "the product's own validation Job");
  const attempts: [Edit, RegExp, string][] = [
    [
      (_p, c) => (c['command'] = ['/bin/sh', '-c', 'kubectl create clusterrolebinding x --clusterrole=cluster-admin']),
      /start the image's own entrypoint \(aicr\): no container sets command/,
      'a shell with the expected arguments',
    ],
    [(_p, c) => (c.env = [{ name: 'LD_PRELOAD', value: '/tmp/x.so' }]), ENV, 'an environment variable AICR never gets'],
    [
      (_p, c) => (c.env = [{ name: 'DOCKER_CONFIG', value: '/aicr/docker' }]),
      ENV,
      "the render Job's push credentials variable in aicr-validation",
    ],
    [(_p, c) => (c['envFrom'] = [{ secretRef: { name: 'aicr-registry-auth' } }]), ENV, 'a Secret as environment'],
    [(p, c) => secretVolume(p, c, 'aicr-registry-auth'), MOUNTS, 'a Secret mounted'],
    [(p, c) => hostRoot(p, c), HOST, "the host's root mounted"],
    [
      (_p, c) => (c.volumeMounts = [...(c.volumeMounts ?? []), { name: 'tmp', mountPath: '/aicr/bin' }]),
      MOUNTS,
      'a writable volume mounted over another path',
    ],
    [(p) => (podSc(p)['runAsUser'] = 0), UNPRIVILEGED, 'the Pod as root'],
    [(_p, c) => (sc(c)['runAsUser'] = 0), UNPRIVILEGED, 'the container as root'],
    [(_p, c) => (sc(c)['allowPrivilegeEscalation'] = true), UNPRIVILEGED, 'privilege escalation allowed'],
    [(_p, c) => (sc(c)['readOnlyRootFilesystem'] = false), UNPRIVILEGED, 'a writable root filesystem'],
    [(_p, c) => (sc(c)['capabilities'] = { drop: ['NET_RAW'] }), UNPRIVILEGED, 'capabilities kept'],
    [(_p, c) => (sc(c)['capabilities'] = { drop: ['ALL'], add: ['SYS_ADMIN'] }), HOST, 'a capability added'],
    [(p) => (podSc(p)['supplementalGroups'] = [0]), UNPRIVILEGED, "root's group added"],
    [(p) => (podSc(p)['seccompProfile'] = { type: 'Unconfined' }), UNPRIVILEGED, 'seccomp unconfined'],
    [(p) => (p['hostNetwork'] = true), HOST, 'the host network'],
    [(p) => (p['hostIPC'] = true), HOST, "the host's IPC namespace"],
    [
      (_p, c) => (c['lifecycle'] = { postStart: { exec: { command: ['/bin/sh', '-c', 'id'] } } }),
      HOOKS,
      'a command in a postStart hook',
    ],
    [
      (_p, c) => (c['livenessProbe'] = { exec: { command: ['/bin/sh', '-c', 'id'] } }),
      HOOKS,
      'a command in a liveness probe',
    ],
    [
      (p, c) => (p['initContainers'] = [{ ...structuredClone(c), name: 'first' }]),
      /have one container, aicr, and no init containers/,
      'the same container again as an init container',
    ],
  ];
  for (const [edit, why, what] of attempts)
    refused(await createAs(ROLLOUT, productJob(STAGE.validation, edit)), why, what);
});

test("SEC-1 in aicr-jobs the resolve and rollout identities run aicr recipe, bundle and upgrade-check unprivileged, with only the render Job's push credentials", async () => {
  allowed(await createAs(RESOLVE, productJob(STAGE.recipe)), "the product's own recipe Job");
  const render = productJob(STAGE.render);
  assert.match(JSON.stringify(render), /docker-config/, 'the render Job mounts the push credentials');
  allowed(await createAs(RESOLVE, render), "the product's own render Job, with its push credentials");
  const attempts: [(typeof STAGE)[keyof typeof STAGE], Edit, RegExp, string][] = [
    [STAGE.recipe, (_p, c) => (c['command'] = ['/bin/sh']), /no container sets command/, 'a command of its own'],
    [
      STAGE.recipe,
      (_p, c) => (c.args = ['validate', '--phase', 'deployment']),
      /runs in aicr-jobs are aicr recipe, aicr bundle, aicr upgrade-check/,
      'another aicr command',
    ],
    [
      STAGE.recipe,
      (_p, c) => (c.args = ['recipe', '--snapshot=cm://aicr-system/aicr-config', '-o', 'cm://aicr-jobs/o']),
      /reading and writing ConfigMaps only in aicr-jobs/,
      'a ConfigMap outside aicr-jobs',
    ],
    [STAGE.recipe, (_p, c) => (c.env = [{ name: 'HTTPS_PROXY', value: 'http://x' }]), ENV, 'a proxy of its own'],
    [
      STAGE.render,
      (_p, c) =>
        (c.env = [
          ...(c.env ?? []),
          { name: 'EXTRA', valueFrom: { secretKeyRef: { name: 'aicr-registry-auth', key: '.dockerconfigjson' } } },
        ]),
      ENV,
      'a Secret read into the environment',
    ],
    [
      STAGE.render,
      (p) => {
        const v = p.volumes?.find((x) => x['name'] === 'docker-config') as { secret: Record<string, unknown> };
        delete v.secret['items'];
      },
      MOUNTS,
      'the whole push Secret mounted, not only its docker config',
    ],
    [STAGE.recipe, (p, c) => secretVolume(p, c, 'aicr-registry-auth'), MOUNTS, 'a Secret mounted'],
    [STAGE.recipe, (p) => (podSc(p)['runAsUser'] = 0), UNPRIVILEGED, 'the Pod as root'],
    [STAGE.recipe, (p) => (p['hostIPC'] = true), HOST, "the host's IPC namespace"],
    [STAGE.recipe, (p) => (p['hostPID'] = true), HOST, "the host's PID namespace"],
    [STAGE.recipe, (p) => (p['shareProcessNamespace'] = true), HOOKS, 'a shared process namespace'],
    [
      STAGE.recipe,
      (_p, c) => (c['ports'] = [{ containerPort: 80, hostPort: 80 }]),
      HOOKS,
      "a port on the node's address",
    ],
  ];
  for (const [stage, edit, why, what] of attempts) refused(await createAs(RESOLVE, productJob(stage, edit)), why, what);
});

test('SEC-1 in aicr-discovery the snapshot agent is privileged only in its own shape: its arguments, its three variables, /tmp and two read-only host paths, no hook, no other namespace', async () => {
  allowed(await createAs(SNAPSHOT, productJob(STAGE.snapshot)), "the product's own snapshot agent");
  const attempts: [Edit, RegExp, string][] = [
    [
      (_p, c) => {
        c['command'] = ['/bin/sh', '-c', 'nsenter -t 1 -m -u -i -n sh'];
        c.args = [];
      },
      /no container sets command/,
      'a host shell with other arguments',
    ],
    [(_p, c) => (c.args = ['snapshot', '-o', '/tmp/x']), /runs aicr snapshot -o cm:\/\/aicr-discovery/, 'other args'],
    [(_p, c) => c.env?.push({ name: 'LD_PRELOAD', value: '/tmp/x.so' }), ENV, 'a library preloaded into the agent'],
    [
      (_p, c) => c.env?.push({ name: 'KUBECONFIG', valueFrom: { configMapKeyRef: { name: 'x', key: 'y' } } }),
      ENV,
      'a variable from a ConfigMap',
    ],
    [(p, c) => secretVolume(p, c, 'aicr-snapshot-token'), MOUNTS, 'a Secret mounted'],
    [
      (p, c) => hostRoot(p, c),
      /reads \/run\/systemd and \/etc\/os-release read-only; nothing more of the host/,
      "the host's root mounted",
    ],
    [
      (p, c) => {
        p.volumes?.push({ name: 'scratch', emptyDir: {} });
        c.volumeMounts?.push({ name: 'scratch', mountPath: '/etc' });
      },
      MOUNTS,
      'another volume, over /etc',
    ],
    [
      (_p, c) => {
        const m = c.volumeMounts?.find((x) => x['name'] === 'run-systemd');
        if (m) m['mountPropagation'] = 'HostToContainer';
      },
      MOUNTS,
      'mount propagation from the host',
    ],
    [(p) => (p['hostNetwork'] = true), /shares the host's PID namespace/, 'the host network'],
    [(p) => (p['hostIPC'] = true), /shares the host's PID namespace/, "the host's IPC namespace"],
    [
      (_p, c) => (c['lifecycle'] = { postStart: { exec: { command: ['nsenter', '-t', '1', '-a', 'sh'] } } }),
      HOOKS,
      'a host shell in a postStart hook',
    ],
    [
      (_p, c) => (c['readinessProbe'] = { exec: { command: ['/bin/sh', '-c', 'id'] } }),
      HOOKS,
      'a command in a readiness probe',
    ],
    [(p) => (podSc(p)['sysctls'] = [{ name: 'kernel.shm_rmid_forced', value: '1' }]), HOOKS, 'a sysctl of its own'],
    [
      (p, c) => p.containers.push({ ...structuredClone(c), name: 'second' }),
      /have one container, aicr, and no init containers/,
      'a second privileged container',
    ],
  ];
  for (const [edit, why, what] of attempts)
    refused(await createAs(SNAPSHOT, productJob(STAGE.snapshot, edit)), why, what);
});

test("SEC-1 as aicr-validate only AICR's validator Job is admitted: its image at a tag pinned to a digest or at that digest, one deployment check as its argument, its own variables and the run's two ConfigMaps", async () => {
  const [[tag, pin]] = Object.entries(validatorPins()) as [[string, string]];
  assert.match(pin, /@sha256:[0-9a-f]{64}$/, 'the tag is pinned to a digest');
  allowed(await createAs(VALIDATE, aicrValidatorJob(tag)), 'the validator Job AICR v0.11.1 applies, at its tag');
  allowed(await createAs(VALIDATE, aicrValidatorJob(pin)), 'the same Job at the pinned digest');
  refused(
    await createAs(VALIDATE, aicrValidatorJob('ghcr.io/nvidia/aicr-validators/deployment:v0.11.0')),
    /is not pinned by the configuration.*aicr\.validatorImages/,
    'a tag the configuration does not pin',
  );
  refused(
    await createAs(VALIDATE, aicrValidatorJob(`ghcr.io/nvidia/aicr-validators/deployment@sha256:${'1'.repeat(64)}`)),
    /is not pinned by the configuration.*aicr\.validatorImages/,
    'a digest the configuration does not pin',
  );
  const attempts: [Edit, RegExp, string][] = [
    [
      (_p, c) => (c['command'] = ['/bin/sh', '-c', 'kubectl get secrets -A']),
      /start the image's own entrypoint \(AICR's validator\): no container sets command/,
      'a shell as the cluster-admin validator',
    ],
    [
      (_p, c) => (c.args = ['sh']),
      /AICR's validators in aicr-validation run one deployment check/,
      'an argument that is no deployment check',
    ],
    [(_p, c) => (c.args = ['operator-health', '--extra']), /named as their only argument/, 'a second argument'],
    [(_p, c) => c.env?.push({ name: 'LD_PRELOAD', value: '/tmp/x.so' }), ENV, 'another variable'],
    [(p, c) => secretVolume(p, c, 'aicr-registry-auth'), MOUNTS, 'a Secret mounted'],
    [
      (p) => {
        const v = p.volumes?.[0] as { configMap: { name: string } };
        v.configMap.name = 'aicr-config';
      },
      MOUNTS,
      "another ConfigMap than the run's snapshot",
    ],
    [(p, c) => hostRoot(p, c), HOST, "the host's root mounted"],
    [(_p, c) => (sc(c)['privileged'] = true), HOST, 'a privileged validator'],
    [(p) => (p['hostPID'] = true), HOST, "the host's PID namespace"],
    [
      (_p, c) => (c['name'] = 'aicr'),
      /have one container, validator, and no init containers/,
      'another container name',
    ],
    [
      (_p, c) => (c['startupProbe'] = { exec: { command: ['/bin/sh', '-c', 'id'] } }),
      HOOKS,
      'a command in a startup probe',
    ],
  ];
  for (const [edit, why, what] of attempts) refused(await createAs(VALIDATE, aicrValidatorJob(tag, edit)), why, what);
});
