// The security boundaries, tried as an attacker holding each of the control plane's identities
// would: every attempt goes to the real API server, impersonating that identity's group (as
// its EKS access entry maps it), and must be refused, by RBAC or by the chart's admission
// policies. Each refusal is checked by what the API server says, and each boundary also lets
// the product's own request of the same kind through (server-side dry run, so nothing runs),
// so a policy that refused everything would fail here too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ARGOCD,
  CONFIGURATION,
  FORWARDER_CHECKPOINT,
  IDENTITY_GROUP,
  IDENTITY_USER,
  NAMESPACES,
} from '../../shared/api/constants.ts';
import { WORKLOAD_BINDING } from '../../shared/rbac/workloadAdmission.ts';
import { STAGE, jobName } from '../../shared/aicr/stages.ts';
import { runJob } from '../../shared/aicr/jobSpec.ts';
import { snapshotArgs } from '../../shared/aicr/snapshotStage.ts';
import { validationArgs } from '../../shared/rollout/io/validationStage.ts';
import { ConfigurationSchema } from '../../shared/configuration/schema.ts';
import { REGISTRY_SECRET, TEST_AICR_IMAGE } from '../../harness/configuration.ts';
import { attackedConfiguration, attackedRuntime } from '../helpers/attackedRuntime.ts';
import { attackApplication } from '../helpers/attackApplication.ts';
import { appReaches } from '../helpers/argocd.ts';
import { type Identity, allowed, createAs, kubectlAs, refused, stepIdentity } from '../helpers/impersonate.ts';
import { kubectl, waitFor } from '../../harness/runtime.ts';
import { kubectlApply } from '../../harness/kubectlApply.ts';
import { validatorPins } from '../../harness/validatorPins.ts';

const SNAPSHOT = stepIdentity('snapshot');
const RESOLVE = stepIdentity('resolve');
const ROLLOUT = stepIdentity('rollout');
const DRIFT = stepIdentity('drift-check');
const FORWARDER: Identity = { user: IDENTITY_USER.forwarder, groups: [IDENTITY_GROUP.forwarder] };
const VALIDATE: Identity = {
  user: `system:serviceaccount:${NAMESPACES.validation}:aicr-validate`,
  groups: ['system:serviceaccounts', `system:serviceaccounts:${NAMESPACES.validation}`],
};
const runtimeUID = attackedRuntime();

const configuration = (): ReturnType<typeof ConfigurationSchema.parse> =>
  ConfigurationSchema.parse(attackedConfiguration());

/** An Application as the rollout step writes one for this runtime, in `project`, deploying to `namespace`. */
const ownedApplication = (name: string, to: { project: string; namespace: string }): Record<string, unknown> =>
  attackApplication(name, {
    uid: runtimeUID(),
    project: to.project,
    destination: { server: ARGOCD.inClusterServer, namespace: to.namespace },
  });

/** The Job the control plane itself makes for `stage`, with the pod spec changed by `edit`. */
function productJob(
  stage: (typeof STAGE)[keyof typeof STAGE],
  edit: (pod: Record<string, unknown>, container: Record<string, unknown>) => void = () => undefined,
): Record<string, unknown> {
  // The arguments the product itself passes for the stage.
  const args =
    stage === STAGE.validation
      ? validationArgs('sec0attack0000')
      : stage === STAGE.snapshot
        ? snapshotArgs('sec0attack0000')
        : ['recipe'];
  const job = runJob({
    stage,
    hash: 'sec0attack0000',
    run: 1,
    image: TEST_AICR_IMAGE,
    args,
    runtimeUID: runtimeUID(),
    configuration: configuration(),
    activeDeadlineSeconds: 60,
    ttlSecondsAfterFinished: 60,
    registryAuth: false,
  }) as unknown as {
    metadata: { name: string };
    spec: { template: { spec: Record<string, unknown> & { containers: Record<string, unknown>[] } } };
  };
  job.metadata.name = `${jobName(stage, 'sec0attack0000', 1)}`;
  const pod = job.spec.template.spec;
  const container = pod.containers[0];
  assert.ok(container);
  edit(pod, container);
  return job as unknown as Record<string, unknown>;
}

test("SEC-1 the snapshot identity runs only the pinned AICR image, as the snapshot agent, in the agent's own host shape", async () => {
  allowed(await createAs(SNAPSHOT, productJob(STAGE.snapshot)), "the product's own snapshot Job");
  refused(
    await createAs(
      SNAPSHOT,
      productJob(STAGE.snapshot, (_p, c) => (c['command'] = ['/bin/sh', '-c', 'nsenter -t 1 -m -u -i -n sh'])),
    ),
    /no container sets command/,
    'a host shell in the privileged snapshot agent',
  );
  refused(
    await createAs(
      SNAPSHOT,
      productJob(STAGE.snapshot, (_p, c) => (c['args'] = ['validate', '--phase', 'deployment'])),
    ),
    /the snapshot agent in aicr-discovery runs aicr snapshot -o cm:\/\/aicr-discovery\/.*, nothing else/,
    "another aicr command with the agent's host access",
  );
  refused(
    await createAs(
      SNAPSHOT,
      productJob(STAGE.snapshot, (_p, c) => (c['image'] = 'docker.io/library/busybox:latest')),
    ),
    /image docker\.io\/library\/busybox:latest is not pinned by the configuration.*aicr\.versions/,
    'a foreign image, privileged',
  );
  refused(
    await createAs(
      SNAPSHOT,
      productJob(STAGE.snapshot, (_p, c) => (c['image'] = 'ghcr.io/nvidia/aicr:v0.11.2')),
    ),
    /is not pinned/,
    'an AICR image the configuration does not pin',
  );
  refused(
    await createAs(
      SNAPSHOT,
      productJob(STAGE.snapshot, (p) => (p['serviceAccountName'] = 'default')),
    ),
    /run as ServiceAccount aicr-snapshot-agent, not default/,
    'another ServiceAccount',
  );
  refused(
    await createAs(
      SNAPSHOT,
      productJob(STAGE.snapshot, (p) => (p['hostNetwork'] = true)),
    ),
    /nothing more of the host/,
    "the host's network",
  );
  refused(
    await createAs(
      SNAPSHOT,
      productJob(STAGE.snapshot, (p, c) => {
        p['volumes'] = [...(p['volumes'] as unknown[]), { name: 'root', hostPath: { path: '/' } }];
        c['volumeMounts'] = [...(c['volumeMounts'] as unknown[]), { name: 'root', mountPath: '/host' }];
      }),
    ),
    /nothing more of the host/,
    "the host's root file system",
  );
  refused(
    await createAs(
      SNAPSHOT,
      productJob(
        STAGE.snapshot,
        (_p, c) =>
          (c['volumeMounts'] = (c['volumeMounts'] as Record<string, unknown>[]).map((m) => ({
            ...m,
            readOnly: false,
          }))),
      ),
    ),
    /nothing more of the host/,
    'a host path mounted writable',
  );
  refused(
    await createAs(SNAPSHOT, {
      ...productJob(STAGE.snapshot),
      metadata: { name: 'sec-other-namespace', namespace: NAMESPACES.jobs },
    }),
    /forbidden/i,
    'a Job in another namespace (RBAC)',
  );
  refused(
    await createAs(SNAPSHOT, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'sec-pod', namespace: NAMESPACES.discovery },
      spec: { containers: [{ name: 'x', image: TEST_AICR_IMAGE }] },
    }),
    /forbidden/i,
    'a Pod of its own (RBAC)',
  );
});

test('SEC-1 the resolve and rollout identities run AICR unprivileged as aicr-runner in aicr-jobs, and in aicr-validation only aicr validate as aicr-validate', async () => {
  allowed(await createAs(RESOLVE, productJob(STAGE.recipe)), "the product's own recipe Job");
  allowed(await createAs(ROLLOUT, productJob(STAGE.validation)), "the product's own validation Job");
  refused(
    await createAs(
      RESOLVE,
      productJob(STAGE.recipe, (_p, c) => (c['securityContext'] = { privileged: true })),
    ),
    /use no host namespaces, privilege/,
    'a privileged recipe Job',
  );
  refused(
    await createAs(
      RESOLVE,
      productJob(STAGE.recipe, (p) => (p['hostPID'] = true)),
    ),
    /use no host namespaces/,
    "the host's PID namespace outside aicr-discovery",
  );
  refused(
    await createAs(
      RESOLVE,
      productJob(STAGE.recipe, (p) => (p['serviceAccountName'] = 'default')),
    ),
    /run as ServiceAccount aicr-runner, not default/,
    'another ServiceAccount in aicr-jobs',
  );
  refused(
    await createAs(
      ROLLOUT,
      productJob(STAGE.validation, (_p, c) => (c['args'] = ['snapshot'])),
    ),
    /a run as aicr-validate is aicr validate --phase deployment with its own flags and ConfigMaps in aicr-validation/,
    'another aicr command as aicr-validate',
  );
  refused(
    await createAs(
      ROLLOUT,
      productJob(
        STAGE.validation,
        (_p, c) => (c['command'] = ['/bin/sh', '-c', 'kubectl create clusterrolebinding x']),
      ),
    ),
    /start the image's own entrypoint \(aicr\): no container sets command/,
    'a shell as aicr-validate with the expected arguments',
  );
  refused(
    await createAs(
      ROLLOUT,
      productJob(STAGE.validation, (_p, c) => {
        const args = c['args'] as string[];
        args[6] = 'cm://aicr-system/aicr-config';
      }),
    ),
    /with its own flags and ConfigMaps in aicr-validation/,
    'aicr validate reading a ConfigMap outside aicr-validation',
  );
  refused(
    await createAs(
      RESOLVE,
      productJob(STAGE.recipe, (_p, c) => (c['command'] = ['/bin/sh'])),
    ),
    /no container sets command/,
    'a recipe Job with a command of its own',
  );
  refused(
    await createAs(
      ROLLOUT,
      productJob(STAGE.validation, (_p, c) => (c['image'] = 'docker.io/library/busybox:latest')),
    ),
    /is not pinned/,
    'a foreign image as aicr-validate',
  );
  refused(
    await createAs(
      ROLLOUT,
      productJob(STAGE.validation, (p) => (p['serviceAccountName'] = 'aicr-validator')),
    ),
    /run as ServiceAccount aicr-validate, not aicr-validator/,
    "a Job as AICR's cluster-admin validators",
  );
});

test("SEC-1 aicr validate's identity runs AICR's validators only at the tags aicr.validatorImages pins, as aicr-validator, without host access", async () => {
  const [tag] = Object.keys(validatorPins());
  assert.ok(tag, 'a validator image is pinned');
  const validator = (
    image: string,
    sa = 'aicr-validator',
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'sec-validator', namespace: NAMESPACES.validation },
    spec: {
      backoffLimit: 0,
      template: {
        spec: {
          serviceAccountName: sa,
          restartPolicy: 'Never',
          containers: [{ name: 'validator', image, args: ['operator-health'] }],
          ...extra,
        },
      },
    },
  });
  allowed(await createAs(VALIDATE, validator(tag)), 'a validator at its pinned tag');
  refused(
    await createAs(VALIDATE, validator('ghcr.io/nvidia/aicr-validators/deployment:latest')),
    /is not pinned by the configuration.*aicr\.validatorImages/,
    'a validator image nobody pinned',
  );
  refused(
    await createAs(VALIDATE, validator(tag, 'aicr-validate')),
    /run as ServiceAccount aicr-validator, not aicr-validate/,
    'a Job as aicr-validate itself',
  );
  refused(
    await createAs(VALIDATE, validator(tag, 'aicr-validator', { hostNetwork: true })),
    /use no host namespaces/,
    'a validator on the host network',
  );
});

test("SEC-2 no step writes the configuration or the forwarder's checkpoints, and the resolve step reads no Secret but the registry's", async () => {
  const patch = JSON.stringify({
    data: { [CONFIGURATION.key]: 'aicr: {versions: {v0.11.1: docker.io/library/busybox:latest}}' },
  });
  for (const who of [RESOLVE, SNAPSHOT, DRIFT, ROLLOUT]) {
    const o = await kubectlAs(who, [
      'patch',
      'configmap',
      CONFIGURATION.name,
      '-n',
      CONFIGURATION.namespace,
      '--dry-run=server',
      '--type=merge',
      '-p',
      patch,
    ]);
    refused(
      o,
      /is the chart's: change it through the chart's values|forbidden/i,
      `${who.user} rewriting ${CONFIGURATION.name}`,
    );
  }
  refused(
    await kubectlAs(SNAPSHOT, [
      'delete',
      'configmap',
      CONFIGURATION.name,
      '-n',
      CONFIGURATION.namespace,
      '--dry-run=server',
    ]),
    /is the chart's: change it through the chart's values/,
    'the snapshot step deleting the configuration',
  );
  const recreated = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CONFIGURATION.name, namespace: CONFIGURATION.namespace },
    data: { [CONFIGURATION.key]: '{}' },
  };
  refused(
    await createAs(SNAPSHOT, recreated),
    /is the chart's|already exists/,
    'the snapshot step creating the configuration',
  );
  const checkpoint = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${FORWARDER_CHECKPOINT.name}-forged`, namespace: FORWARDER_CHECKPOINT.namespace },
    data: { [FORWARDER_CHECKPOINT.key]: '1' },
  };
  refused(
    await createAs(RESOLVE, checkpoint),
    /are the forwarder's checkpoints; only the forwarder/,
    'a step writing a forwarder checkpoint',
  );
  allowed(await createAs(FORWARDER, checkpoint), 'the forwarder writing its checkpoint');
  allowed(
    await kubectlAs(RESOLVE, ['get', 'secret', REGISTRY_SECRET, '-n', NAMESPACES.system]),
    'the resolve step reading the registry Secret the configuration names',
  );
  await kubectl(
    'create',
    'secret',
    'generic',
    'sec-someone-elses',
    '-n',
    NAMESPACES.system,
    '--from-literal=password=hunter2',
  ).catch(() => undefined);
  try {
    for (const ns of [NAMESPACES.system, NAMESPACES.jobs, NAMESPACES.validation])
      refused(
        await kubectlAs(RESOLVE, ['get', 'secrets', '-n', ns]),
        /forbidden/i,
        `the resolve step listing Secrets in ${ns}`,
      );
    refused(
      await kubectlAs(RESOLVE, ['get', 'secret', 'sec-someone-elses', '-n', NAMESPACES.system]),
      /forbidden/i,
      'the resolve step reading another Secret in aicr-system',
    );
  } finally {
    await kubectl('delete', 'secret', 'sec-someone-elses', '-n', NAMESPACES.system, '--ignore-not-found');
  }
});

test("SEC-8 SEC-1 with aicr-config deleted the boundaries fail closed: no Job runs in the AICR namespaces, the product's own included, the refusal names the ConfigMap, Applications still keep to the project and namespaces, and Argo CD's other Applications are untouched", async () => {
  const config = JSON.parse(
    await kubectl('get', 'configmap', CONFIGURATION.name, '-n', CONFIGURATION.namespace, '-o', 'json'),
  ) as { data: Record<string, string> };
  const app = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'sec8-someone-elses', namespace: NAMESPACES.argocd },
    spec: {
      project: 'default',
      destination: { server: 'https://kubernetes.default.svc', namespace: 'sec8' },
      source: { repoURL: 'https://charts.example/x', chart: 'x', targetRevision: '1.0.0' },
    },
  };
  await kubectl('delete', 'configmap', CONFIGURATION.name, '-n', CONFIGURATION.namespace);
  try {
    // The API server's parameter cache follows the delete within moments.
    const shut = await waitFor(
      'the workload policy to find its parameter gone',
      async () => {
        const o = await createAs(RESOLVE, productJob(STAGE.recipe));
        return o.ok ? undefined : o;
      },
      20_000,
    );
    refused(
      shut,
      new RegExp(`binding '${WORKLOAD_BINDING}' denied request: .*no params found`),
      "the resolve step's own Job, with the configuration gone: the refusal names the missing ConfigMap",
    );
    assert.match(WORKLOAD_BINDING, /aicr-system-aicr-config$/);
    refused(
      await createAs(
        SNAPSHOT,
        productJob(STAGE.snapshot, (_p, c) => (c['image'] = 'docker.io/library/busybox:latest')),
      ),
      /aicr-run-workloads/,
      'the snapshot step running any image privileged, with the configuration gone',
    );
    allowed(
      await createAs({ user: 'admin', groups: ['system:masters'] }, app, false),
      'an Application outside our scope',
    );
    // Argo CD still writes its Applications: it records what it found on this one.
    await appReaches(
      'sec8-someone-elses',
      'reported on by Argo CD',
      (a) => a?.status?.reconciledAt !== undefined,
      60_000,
    );
    // The policy on the control plane's Application writes reads no parameter: it still holds.
    refused(
      await createAs(ROLLOUT, ownedApplication('sec8-outside', { project: 'default', namespace: 'ns-sec8' })),
      /names AppProject default, not aicr/,
      'the rollout identity writing into another project, with the configuration gone',
    );
    refused(
      await createAs(ROLLOUT, ownedApplication('sec8-wide', { project: ARGOCD.project, namespace: 'kube-public' })),
      /deploys to namespace kube-public, which is not listed/,
      'the rollout identity deploying outside argocd.namespaces, with the configuration gone',
    );
    allowed(
      await createAs(ROLLOUT, ownedApplication('sec8-owned', { project: ARGOCD.project, namespace: 'ns-sec8' })),
      'the rollout identity writing an owned Application as a step does, with the configuration gone',
    );
  } finally {
    await kubectlApply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: CONFIGURATION.name, namespace: CONFIGURATION.namespace },
      data: config.data,
    });
    await kubectl(
      'delete',
      'application',
      'sec8-someone-elses',
      '-n',
      NAMESPACES.argocd,
      '--ignore-not-found',
      '--wait=false',
    );
  }
  await waitFor(
    'the workload policy to read its parameter again',
    async () => ((await createAs(RESOLVE, productJob(STAGE.recipe))).ok ? true : undefined),
    20_000,
  );
});
