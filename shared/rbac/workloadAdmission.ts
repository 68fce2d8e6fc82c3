// Renders the chart's admission policy for the workloads the control plane runs
// (infra/chart/templates/workload-admission.yaml, SEC-1). RBAC lets the steps create Jobs in
// aicr-discovery (Pod Security privileged), aicr-jobs and aicr-validation, and aicr validate
// create its validators' Jobs; it cannot look inside them. Without this policy the snapshot
// identity could run any image privileged on a node, and the rollout identity could run a Job as
// aicr-validate and bind itself cluster-admin. So every Job or Pod those identities create must:
// - run only images the configuration pins (aicr.versions; for AICR's validators the tags
//   aicr.validatorImages names, or their pinned digests), read from
//   the admission keys the chart renders beside config.yaml;
// - run as the ServiceAccount of that namespace's runs;
// - use host namespaces, privilege and host paths only in aicr-discovery, and there only in the
//   shape AICR's snapshot agent needs (host PID, two read-only host paths);
// - in aicr-validation, as aicr-validate, be `aicr validate --phase deployment`;
// - in every other field that could run or reach something more (command, arguments, environment,
//   volumes and mounts, hooks and probes, security context) take exactly the shape its kind of run
//   has, the product's or AICR v0.11.1's own validators' (shared/rbac/workloadShapes.ts).
// v0.11.1 names its validator images by tag only, so a tag is admitted when the configuration pins
// it to a digest; the digest a validator runs is checked once it starts (VAL-4).
// People are not matched: the namespaces' Pod Security levels hold them. With aicr-config missing
// the binding refuses every Job and Pod in the three namespaces, anyone's (SEC-8): the parameter
// is looked up before matchConditions, and nothing should run there without the configuration.
// `npm run gen:rbac` writes it beside the RBAC; a unit test fails when the committed file is stale.
import {
  ADMISSION_KEYS,
  AICR_RUNNER_SERVICE_ACCOUNT,
  AICR_SNAPSHOT_SERVICE_ACCOUNT,
  AICR_VALIDATE_SERVICE_ACCOUNT,
  AICR_VALIDATOR_IDENTITY,
  CONFIGURATION,
  NAMESPACES,
  SECURITY_ADMISSION,
} from '../api/constants.ts';
import { celString } from '../api/cel.ts';
import { AGENT_HOST_PATHS } from '../aicr/jobSpec.ts';
import { snapshotArgs } from '../aicr/snapshotStage.ts';
import { validationArgs } from '../rollout/io/validationStage.ts';
import {
  NAMESPACE_NAME_LABEL,
  admissionBinding,
  admissionBindingName,
  admissionPolicy,
  renderAdmissionFile,
} from './admissionDocuments.ts';
import { fromTheControlPlane } from './applicationAdmission.ts';
import { VALIDATE_USER } from './validateAdmission.ts';
import { SHAPE, SHAPE_RULES, SHAPE_VARIABLES } from './workloadShapes.ts';

const q = celString;
const WORKLOAD_PARAMETER = {
  name: CONFIGURATION.name,
  namespace: CONFIGURATION.namespace,
  whenMissing: 'Deny',
} as const;
/** What the API server names when it refuses a run for want of the configuration (SEC-8). */
export const WORKLOAD_BINDING = admissionBindingName(SECURITY_ADMISSION.workloads, WORKLOAD_PARAMETER);
const RUN_NAMESPACES = [NAMESPACES.discovery, NAMESPACES.jobs, NAMESPACES.validation] as const;
/** The arguments the control plane's validation Job starts with (shared/rollout/io/validationStage.ts). */
export const VALIDATE_SHAPE = ['validate', '--phase', 'deployment'] as const;

/**
 * A container's arguments exactly as `made` builds them for some input hash: every flag and value
 * the same, each `cm://<namespace>/<name>` only to a ConfigMap in that same namespace.
 */
function exactArgs(made: readonly string[]): string {
  const each = made.map((a, i) => {
    const cm = /^(cm:\/\/[^/]+\/)/.exec(a)?.[1];
    return cm ? `c.args[${i}].startsWith(${q(cm)})` : `c.args[${i}] == ${q(a)}`;
  });
  return `c.?args.orValue([]).size() == ${made.length} && ${each.join(' && ')}`;
}
const SAMPLE_HASH = '0000000000000000';

const pinned = (key: string): string => `params.?data[?${q(key)}].orValue('').split('\\n')`;

const VARIABLES = [
  { name: 'pod', expression: "request.resource.resource == 'jobs' ? object.spec.template.spec : object.spec" },
  { name: 'containers', expression: 'variables.pod.containers + variables.pod.?initContainers.orValue([])' },
  { name: 'fromValidate', expression: `request.userInfo.username == ${q(VALIDATE_USER)}` },
  { name: 'aicrImages', expression: pinned(ADMISSION_KEYS.aicrImages) },
  { name: 'validatorImages', expression: pinned(ADMISSION_KEYS.validatorImages) },
  { name: 'hostVolumes', expression: 'variables.pod.?volumes.orValue([]).filter(v, has(v.hostPath)).map(v, v.name)' },
  { name: 'serviceAccount', expression: "variables.pod.?serviceAccountName.orValue('default')" },
  ...SHAPE_VARIABLES,
  {
    name: 'runAs',
    expression:
      `request.namespace == ${q(NAMESPACES.discovery)} ? ${q(AICR_SNAPSHOT_SERVICE_ACCOUNT)} : ` +
      `request.namespace == ${q(NAMESPACES.jobs)} ? ${q(AICR_RUNNER_SERVICE_ACCOUNT)} : ` +
      `variables.fromValidate ? ${q(AICR_VALIDATOR_IDENTITY)} : ${q(AICR_VALIDATE_SERVICE_ACCOUNT)}`,
  },
] as const;

const NO_HOST_NAMESPACES = '!variables.pod.?hostNetwork.orValue(false) && !variables.pod.?hostIPC.orValue(false)';
const NOT_PRIVILEGED =
  'variables.containers.all(c, !c.?securityContext.?privileged.orValue(false) && ' +
  'c.?securityContext.?capabilities.?add.orValue([]).size() == 0)';
const HOST_PATHS = AGENT_HOST_PATHS.map((h) => h.path);

export const WORKLOAD_RULES = [
  {
    expression:
      'variables.containers.all(c, variables.fromValidate ? ' +
      'c.image in variables.validatorImages : c.image in variables.aicrImages)',
    messageExpression:
      `'image ' + variables.containers.map(c, c.image).filter(i, ` +
      `!((variables.fromValidate ? variables.validatorImages : variables.aicrImages).exists(p, p == i)))` +
      `.join(', ') + ` +
      `' is not pinned by the configuration (ConfigMap ${CONFIGURATION.namespace}/${CONFIGURATION.name}: ' + ` +
      `(variables.fromValidate ? 'aicr.validatorImages' : 'aicr.versions') + ` +
      `'); pin it there through the chart\\'s values'`,
  },
  {
    expression: 'variables.serviceAccount == variables.runAs',
    messageExpression:
      "'runs in ' + request.namespace + ' run as ServiceAccount ' + " +
      "variables.runAs + ', not ' + variables.serviceAccount",
  },
  {
    expression:
      `request.namespace == ${q(NAMESPACES.discovery)} || (${NO_HOST_NAMESPACES} && ` +
      `!variables.pod.?hostPID.orValue(false) && ${NOT_PRIVILEGED} && variables.hostVolumes.size() == 0)`,
    messageExpression:
      "'runs in ' + request.namespace + ' use no host namespaces, privilege, added capabilities or host paths'",
  },
  {
    expression:
      `request.namespace != ${q(NAMESPACES.discovery)} || (${NO_HOST_NAMESPACES} && ` +
      `variables.pod.?volumes.orValue([]).all(v, !has(v.hostPath) || ` +
      `v.hostPath.path in [${HOST_PATHS.map((p) => q(p)).join(', ')}]) && ` +
      'variables.containers.all(c, c.?volumeMounts.orValue([]).all(m, ' +
      '!(m.name in variables.hostVolumes) || m.?readOnly.orValue(false))))',
    message:
      `the snapshot agent in ${NAMESPACES.discovery} shares the host's PID namespace and reads ` +
      `${HOST_PATHS.join(' and ')} read-only; nothing more of the host`,
  },
  {
    // The image's entrypoint is aicr (or, for AICR's validators, the validator program); a command
    // would run something else with the run's rights, cluster-admin for a validator.
    expression: 'variables.containers.all(c, !has(c.command))',
    messageExpression:
      "'runs in ' + request.namespace + ' start the image\\'s own entrypoint (' + " +
      `(variables.shape == ${q(SHAPE.validator)} ? 'AICR\\'s validator' : 'aicr') + '): no container sets command'`,
  },
  {
    expression:
      `request.namespace != ${q(NAMESPACES.discovery)} || ` +
      `variables.containers.all(c, ${exactArgs(snapshotArgs(SAMPLE_HASH))})`,
    message:
      `the snapshot agent in ${NAMESPACES.discovery} runs aicr ` + `${snapshotArgs('<hash>').join(' ')}, nothing else`,
  },
  {
    expression:
      `request.namespace != ${q(NAMESPACES.validation)} || variables.fromValidate || ` +
      `variables.containers.all(c, ${exactArgs(validationArgs(SAMPLE_HASH))})`,
    message:
      `a run as ${AICR_VALIDATE_SERVICE_ACCOUNT} is aicr ${VALIDATE_SHAPE.join(' ')} with its own flags ` +
      `and ConfigMaps in ${NAMESPACES.validation}, nothing else`,
  },
  ...SHAPE_RULES,
] as const;

export function workloadAdmissionPolicy(): Record<string, unknown> {
  // A configuration without its admission keys pins nothing, so refuses every Job; without the
  // ConfigMap the control plane runs none.
  return admissionPolicy(SECURITY_ADMISSION.workloads, {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: {
      namespaceSelector: {
        matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'In', values: [...RUN_NAMESPACES] }],
      },
      resourceRules: [
        { apiGroups: ['batch'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['jobs'] },
        { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
      ],
    },
    matchConditions: [
      {
        name: 'from-the-control-plane-or-aicr-validate',
        expression: `${fromTheControlPlane()} || request.userInfo.username == ${q(VALIDATE_USER)}`,
      },
    ],
    variables: VARIABLES,
    validations: WORKLOAD_RULES,
  });
}

export function renderWorkloadAdmission(): string {
  return renderAdmissionFile(
    [
      'Generated by `npm run gen:rbac` from shared/api/constants.ts by shared/rbac/workloadAdmission.ts;',
      "do not edit. The control plane's Jobs run only pinned images, as their namespace's ServiceAccount,",
      "with host access only in the snapshot agent's shape (SEC-1, docs/security.md).",
    ],
    [
      workloadAdmissionPolicy(),
      // Matched only in the three AICR namespaces: without the configuration nothing runs there at all.
      admissionBinding(SECURITY_ADMISSION.workloads, WORKLOAD_PARAMETER),
    ],
  );
}
