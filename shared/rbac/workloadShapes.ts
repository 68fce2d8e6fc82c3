// The shape of each kind of run the workload admission policy admits (SEC-1,
// shared/rbac/workloadAdmission.ts): beyond pinned images, identity and host access, every field
// through which a Job could run something else, or reach more than its run needs, is held to what
// the product builds (shared/aicr/jobSpec.ts) or what AICR v0.11.1 builds for its validators
// (shared/aicr/validatorShape.ts): containers, command and arguments, environment, volumes and
// mounts, hooks and probes, and the security context of the unprivileged runs.
import { DOCKER_CONFIG_KEY, NAMESPACES } from '../api/constants.ts';
import { celString } from '../api/cel.ts';
import { AGENT_ENV, AGENT_HOST_PATHS, AICR_CONTAINER, DOCKER_CONFIG_DIR, RUN_AS, WORK_DIR } from '../aicr/jobSpec.ts';
import { DEPLOYMENT_CHECKS, VALIDATOR_CONTAINER, VALIDATOR_ENV, VALIDATOR_INPUTS } from '../aicr/validatorShape.ts';

const q = celString;

/**
 * The four shapes a run takes: the snapshot agent in aicr-discovery, the unprivileged runner in
 * aicr-jobs, and in aicr-validation the control plane's `aicr validate` and AICR's own validators
 * (what aicr-validate creates). Each is admitted only as the product or AICR v0.11.1 builds it.
 */
export const SHAPE = { agent: 'agent', runner: 'runner', validate: 'validate', validator: 'validator' } as const;
type Shape = keyof typeof SHAPE;

/** A CEL list of strings chosen by the run's shape. */
function perShape(lists: Readonly<Record<Shape, readonly string[]>>): string {
  const list = (l: readonly string[]): string => `[${l.map((x) => q(x)).join(', ')}]`;
  return (
    `variables.shape == ${q(SHAPE.agent)} ? ${list(lists.agent)} : ` +
    `variables.shape == ${q(SHAPE.runner)} ? ${list(lists.runner)} : ` +
    `variables.shape == ${q(SHAPE.validate)} ? ${list(lists.validate)} : ${list(lists.validator)}`
  );
}

const ENV_ALLOWED: Record<Shape, readonly string[]> = {
  agent: AGENT_ENV,
  // Only the render Job's push credentials (DOCKER_CONFIG names the mounted directory).
  runner: ['DOCKER_CONFIG'],
  validate: [],
  validator: VALIDATOR_ENV,
};

/** A mount as `name=path`, with ` ro` when read-only. A writable one may also be mounted read-only. */
const rw = (name: string, path: string): string[] => [`${name}=${path}`, `${name}=${path} ro`];
const ro = (name: string, path: string): string => `${name}=${path} ro`;
const MOUNT_OF = "m.name + '=' + m.mountPath + (m.?readOnly.orValue(false) ? ' ro' : '')";
const MOUNTS_ALLOWED: Record<Shape, readonly string[]> = {
  agent: [...rw('tmp', '/tmp'), ...AGENT_HOST_PATHS.map((h) => ro(h.name, h.path))],
  runner: [...rw('work', WORK_DIR), ...rw('tmp', '/tmp'), ro('docker-config', DOCKER_CONFIG_DIR)],
  validate: [...rw('work', WORK_DIR), ...rw('tmp', '/tmp')],
  validator: VALIDATOR_INPUTS.map((i) => ro(i.name, i.path)),
};

/**
 * A volume as `name=source;`. An allowed entry ending in `;` is the whole volume; one without is
 * a prefix (a validator's ConfigMap is named after AICR's run ID). A Secret counts only as the
 * registry's docker config, projected as the one file the render Job reads.
 */
const VOLUME_OF =
  "v.name + '=' + (has(v.emptyDir) ? 'emptyDir' : has(v.hostPath) ? 'hostPath ' + v.hostPath.path : " +
  `has(v.secret) ? 'secret ' + (v.secret.?items.orValue([]).size() == 1 && ` +
  `v.secret.items[0].key == ${q(DOCKER_CONFIG_KEY)} && v.secret.items[0].path == 'config.json' ? ` +
  "'docker-config' : 'other') : has(v.configMap) ? 'configMap ' + v.configMap.?name.orValue('') : 'other') + ';'";
const VOLUMES_ALLOWED: Record<Shape, readonly string[]> = {
  agent: ['tmp=emptyDir;', ...AGENT_HOST_PATHS.map((h) => `${h.name}=hostPath ${h.path};`)],
  runner: ['work=emptyDir;', 'tmp=emptyDir;', 'docker-config=secret docker-config;'],
  validate: ['work=emptyDir;', 'tmp=emptyDir;'],
  validator: VALIDATOR_INPUTS.map((i) => `${i.name}=configMap ${i.configMapPrefix}`),
};

/** The aicr commands the control plane runs in aicr-jobs: recipe, render (bundle) and assessment. */
const RUNNER_COMMANDS = ['recipe', 'bundle', 'upgrade-check'] as const;

const POD_SC = 'variables.pod.?securityContext';
const UNPRIVILEGED = `variables.shape in [${q(SHAPE.runner)}, ${q(SHAPE.validate)}]`;

/** Beyond images, identity and host access: the rest of the shape, field by field. */
export const SHAPE_RULES = [
  {
    expression:
      'variables.pod.containers.size() == 1 && variables.pod.?initContainers.orValue([]).size() == 0 && ' +
      `variables.pod.containers[0].name == (variables.shape == ${q(SHAPE.validator)} ? ` +
      `${q(VALIDATOR_CONTAINER)} : ${q(AICR_CONTAINER)})`,
    messageExpression:
      "'runs in ' + request.namespace + ' have one container, ' + " +
      `(variables.shape == ${q(SHAPE.validator)} ? ${q(VALIDATOR_CONTAINER)} : ${q(AICR_CONTAINER)}) + ` +
      "', and no init containers'",
  },
  {
    expression:
      'variables.containers.all(c, !has(c.envFrom) && c.?env.orValue([]).all(e, ' +
      'e.name in variables.envAllowed && (!has(e.valueFrom) || has(e.valueFrom.fieldRef))))',
    messageExpression:
      "'runs in ' + request.namespace + ' set only the environment their program reads (' + " +
      "(variables.envAllowed.size() == 0 ? 'none' : variables.envAllowed.join(', ')) + " +
      "'), by value or from the Pod\\'s own fields; no envFrom'",
  },
  {
    expression:
      'variables.pod.?volumes.orValue([]).all(v, ' +
      `variables.volumesAllowed.exists(a, (${VOLUME_OF}).startsWith(a))) && ` +
      `variables.containers.all(c, c.?volumeMounts.orValue([]).all(m, (${MOUNT_OF}) in variables.mountsAllowed && ` +
      "!has(m.subPath) && !has(m.subPathExpr) && m.?mountPropagation.orValue('None') == 'None'))",
    messageExpression:
      "'runs in ' + request.namespace + ' mount only ' + variables.mountsAllowed.join(', ') + " +
      "' (ro: read-only), from ' + variables.volumesAllowed.join(' ') + ' and no other volume'",
  },
  {
    // Hooks and probes run commands of their own; ports could take the node's; devices, raw disks.
    expression:
      'variables.containers.all(c, !has(c.lifecycle) && !has(c.livenessProbe) && !has(c.readinessProbe) && ' +
      '!has(c.startupProbe) && !has(c.ports) && !has(c.volumeDevices) && ' +
      '!c.?securityContext.?procMount.hasValue() && !c.?securityContext.?seLinuxOptions.hasValue()) && ' +
      `!variables.pod.?shareProcessNamespace.orValue(false) && !${POD_SC}.?sysctls.hasValue() && ` +
      `!${POD_SC}.?seLinuxOptions.hasValue()`,
    messageExpression:
      "'runs in ' + request.namespace + ' have no lifecycle hooks, probes, ports, devices, shared process " +
      "namespace, sysctls, SELinux options or proc mount of their own'",
  },
  {
    expression:
      `!(${UNPRIVILEGED}) || (${POD_SC}.?runAsNonRoot.orValue(false) && ` +
      `${POD_SC}.?runAsUser.orValue(0) == ${RUN_AS} && ${POD_SC}.?runAsGroup.orValue(0) == ${RUN_AS} && ` +
      `!${POD_SC}.?supplementalGroups.hasValue() && !${POD_SC}.?fsGroup.hasValue() && ` +
      `${POD_SC}.?seccompProfile.?type.orValue('') == 'RuntimeDefault' && ` +
      'variables.containers.all(c, c.?securityContext.?allowPrivilegeEscalation.orValue(true) == false && ' +
      'c.?securityContext.?readOnlyRootFilesystem.orValue(false) && ' +
      "c.?securityContext.?capabilities.?drop.orValue([]) == ['ALL'] && " +
      `c.?securityContext.?runAsUser.orValue(${RUN_AS}) == ${RUN_AS} && ` +
      `c.?securityContext.?runAsGroup.orValue(${RUN_AS}) == ${RUN_AS} && ` +
      'c.?securityContext.?runAsNonRoot.orValue(true) && ' +
      "c.?securityContext.?seccompProfile.?type.orValue('RuntimeDefault') == 'RuntimeDefault'))",
    messageExpression:
      "'runs in ' + request.namespace + ' run as user and group " +
      `${RUN_AS}, non-root, with the RuntimeDefault seccomp profile, no extra groups, a read-only root ` +
      "filesystem, no privilege escalation and every capability dropped'",
  },
  {
    expression:
      `variables.shape != ${q(SHAPE.validator)} || variables.containers.all(c, c.?args.orValue([]).size() == 1 && ` +
      `c.args[0] in [${DEPLOYMENT_CHECKS.map((x) => q(x)).join(', ')}])`,
    message:
      `AICR's validators in ${NAMESPACES.validation} run one deployment check ` +
      `(${DEPLOYMENT_CHECKS.join(', ')}), named as their only argument`,
  },
  {
    expression:
      `variables.shape != ${q(SHAPE.runner)} || variables.containers.all(c, c.?args.orValue([]).size() > 0 && ` +
      `c.args[0] in [${RUNNER_COMMANDS.map((x) => q(x)).join(', ')}] && ` +
      `c.args.all(a, !a.contains('cm://') || a.startsWith(${q(`cm://${NAMESPACES.jobs}/`)})))`,
    message:
      `runs in ${NAMESPACES.jobs} are aicr ${RUNNER_COMMANDS.join(', aicr ')}, reading and writing ` +
      `ConfigMaps only in ${NAMESPACES.jobs}`,
  },
] as const;

/** The variables the shape rules read; `shape` needs `fromValidate` before it. */
export const SHAPE_VARIABLES = [
  {
    name: 'shape',
    expression:
      `request.namespace == ${q(NAMESPACES.discovery)} ? ${q(SHAPE.agent)} : ` +
      `request.namespace == ${q(NAMESPACES.jobs)} ? ${q(SHAPE.runner)} : ` +
      `variables.fromValidate ? ${q(SHAPE.validator)} : ${q(SHAPE.validate)}`,
  },
  { name: 'envAllowed', expression: perShape(ENV_ALLOWED) },
  { name: 'mountsAllowed', expression: perShape(MOUNTS_ALLOWED) },
  { name: 'volumesAllowed', expression: perShape(VOLUMES_ALLOWED) },
] as const;
