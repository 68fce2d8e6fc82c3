// The Job one AICR run is: one container, no retries of its own (the control plane decides
// about retries), its error output kept as the termination message, placement only from the
// configuration, and nothing but the stage's own output writable.
import {
  AICR_RUNNER_SERVICE_ACCOUNT,
  AICR_SNAPSHOT_SERVICE_ACCOUNT,
  AICR_VALIDATE_SERVICE_ACCOUNT,
  ANNOTATION,
  DOCKER_CONFIG_KEY,
  LABEL,
  MANAGED_BY_VALUE,
  NODE_LABEL,
  REGISTRY_JOB_SECRET,
} from '../api/constants.ts';
import type { Configuration } from '../configuration/schema.ts';
import type { WritableObject } from '../kube/port.ts';
import { parseDuration } from '../api/duration.ts';
import type { Timings } from '../timings.ts';
import { STAGE, STAGE_NAMESPACE, type Stage, jobName } from './stages.ts';

/** Where the render Job finds the registry's docker config (AICR v0.11.1 reads push credentials only from there). */
export const DOCKER_CONFIG_DIR = '/aicr/docker';
/** AICR writes the pushed bundle's digest here; the kubelet reports it as the termination message. */
export const TERMINATION_LOG = '/dev/termination-log';
/** The run's working directory, an emptyDir: with /tmp the only places an AICR run may write. */
export const WORK_DIR = '/aicr/work';
/** The one container of every run's Pod. */
export const AICR_CONTAINER = 'aicr';
/** The unprivileged user and group AICR runs as outside aicr-discovery (the image's nonroot). */
export const RUN_AS = 65532;
/** The environment the snapshot agent is given, by name: nothing else reaches it. */
export const AGENT_ENV = ['AICR_AGENT_MODE', 'AICR_LOG_PREFIX', 'NODE_NAME'] as const;

export interface RunRequest {
  readonly stage: Stage;
  readonly hash: string;
  readonly run: number;
  readonly image: string;
  /** The aicr arguments, command first. */
  readonly args: readonly string[];
  readonly runtimeUID: string;
  readonly configuration: Configuration;
  readonly activeDeadlineSeconds: number;
  readonly ttlSecondsAfterFinished: number;
  /** Mount the registry's docker config (render pushes to the registry). */
  readonly registryAuth: boolean;
}

function podSpec(r: RunRequest): Record<string, unknown> {
  const { auth } = r.configuration.registry;
  const secret = auth.mode === 'static' ? auth.staticSecretRef : '';
  // In aws mode the push credentials are the token the control plane minted into aicr-jobs;
  // image pulls need none there (EKS nodes pull from ECR with their own role).
  const pushSecret = auth.mode === 'aws' ? REGISTRY_JOB_SECRET : secret;
  const dockerConfig = r.registryAuth && pushSecret !== '';
  const { nodeSelector, tolerations } = r.configuration.aicr.jobs;
  return {
    restartPolicy: 'Never',
    // Validation has its own identity in its own namespace (docs/security.md).
    serviceAccountName: r.stage === STAGE.validation ? AICR_VALIDATE_SERVICE_ACCOUNT : AICR_RUNNER_SERVICE_ACCOUNT,
    // Placement only from the configuration (JOB-4).
    ...(Object.keys(nodeSelector).length > 0 ? { nodeSelector } : {}),
    ...(tolerations.length > 0 ? { tolerations } : {}),
    ...(secret ? { imagePullSecrets: [{ name: secret }] } : {}),
    securityContext: {
      runAsNonRoot: true,
      runAsUser: RUN_AS,
      runAsGroup: RUN_AS,
      seccompProfile: { type: 'RuntimeDefault' },
    },
    containers: [aicrContainer(r, dockerConfig)],
    volumes: aicrVolumes(dockerConfig, pushSecret),
  };
}

function aicrContainer(r: RunRequest, dockerConfig: boolean): Record<string, unknown> {
  return {
    name: AICR_CONTAINER,
    image: r.image,
    args: [...r.args],
    workingDir: WORK_DIR,
    env: dockerConfig ? [{ name: 'DOCKER_CONFIG', value: DOCKER_CONFIG_DIR }] : [],
    // A failed run's last output lines become its termination message: JOB-2 reads them from the Pod.
    terminationMessagePolicy: 'FallbackToLogsOnError',
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    },
    volumeMounts: [
      { name: 'work', mountPath: WORK_DIR },
      { name: 'tmp', mountPath: '/tmp' },
      ...(dockerConfig ? [{ name: 'docker-config', mountPath: DOCKER_CONFIG_DIR, readOnly: true }] : []),
    ],
  };
}

function aicrVolumes(dockerConfig: boolean, pushSecret: string): Record<string, unknown>[] {
  return [
    { name: 'work', emptyDir: {} },
    { name: 'tmp', emptyDir: {} },
    ...(dockerConfig
      ? [
          {
            name: 'docker-config',
            secret: { secretName: pushSecret, items: [{ key: DOCKER_CONFIG_KEY, path: 'config.json' }] },
          },
        ]
      : []),
  ];
}

/** Host paths AICR's agent reads: the host's systemd (SystemD collector) and OS release (OS collector). */
export const AGENT_HOST_PATHS = [
  { name: 'run-systemd', path: '/run/systemd', type: 'Directory' },
  { name: 'host-os-release', path: '/etc/os-release', type: 'File' },
] as const;

/**
 * AICR's snapshot agent, as its own agent Job runs it in privileged mode, less what its
 * collectors do not use: it must see the host's GPUs, processes and OS (privileged, root, host
 * PID namespace, two read-only host paths); it needs neither the host network nor host IPC,
 * which only `--discover-network` would use. It goes to a GPU node, whatever that node's taints.
 */
function agentPodSpec(r: RunRequest): Record<string, unknown> {
  return {
    restartPolicy: 'Never',
    serviceAccountName: AICR_SNAPSHOT_SERVICE_ACCOUNT,
    nodeSelector: { [NODE_LABEL.gpuPresent]: 'true' },
    tolerations: [{ operator: 'Exists' }],
    hostPID: true,
    securityContext: { runAsUser: 0, runAsGroup: 0 },
    containers: [
      {
        name: AICR_CONTAINER,
        image: r.image,
        args: [...r.args],
        env: [
          // Agent mode: measure this node here instead of deploying another agent.
          { name: AGENT_ENV[0], value: 'true' },
          { name: AGENT_ENV[1], value: 'agent' },
          { name: AGENT_ENV[2], valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
        ],
        terminationMessagePolicy: 'FallbackToLogsOnError',
        securityContext: { privileged: true, runAsUser: 0, runAsGroup: 0 },
        volumeMounts: [
          { name: 'tmp', mountPath: '/tmp' },
          ...AGENT_HOST_PATHS.map((h) => ({ name: h.name, mountPath: h.path, readOnly: true })),
        ],
      },
    ],
    volumes: [
      { name: 'tmp', emptyDir: {} },
      ...AGENT_HOST_PATHS.map((h) => ({ name: h.name, hostPath: { path: h.path, type: h.type } })),
    ],
  };
}

/** How long a run may take (the runtime's spec.actionTimeout) and how long a finished Job is kept. */
export function runLimits(
  actionTimeout: string,
  timings: Pick<Timings, 'failedJobTtlMs'>,
): { activeDeadlineSeconds: number; ttlSecondsAfterFinished: number } {
  return {
    activeDeadlineSeconds: Math.round((parseDuration(actionTimeout) ?? 1_800_000) / 1000),
    ttlSecondsAfterFinished: Math.round(timings.failedJobTtlMs / 1000),
  };
}

export function runJob(r: RunRequest): WritableObject {
  const labels = { [LABEL.stage]: r.stage, [LABEL.input]: r.hash, [LABEL.managedBy]: MANAGED_BY_VALUE };
  const annotations = { [ANNOTATION.runtimeUID]: r.runtimeUID };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: jobName(r.stage, r.hash, r.run), namespace: STAGE_NAMESPACE[r.stage], labels, annotations },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: r.activeDeadlineSeconds,
      ttlSecondsAfterFinished: r.ttlSecondsAfterFinished,
      template: { metadata: { labels, annotations }, spec: r.stage === STAGE.snapshot ? agentPodSpec(r) : podSpec(r) },
    },
  };
}
