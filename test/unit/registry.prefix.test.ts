// In aws mode registry.repository must lie under the deployment's registry prefix, where the
// roles' ECR rights end: outside it, resolution stalls with InvalidConfiguration naming both
// values and both fixes before any Job or push, and the token refresh writes no Secret for Argo
// CD. Without a prefix (local mode) or in static mode nothing is checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, ARGOCD_REGISTRY_SECRET, CONFIGURATION, FIELD_MANAGER } from '../../shared/api/constants.ts';
import { ConfigurationSchema } from '../../shared/configuration/schema.ts';
import { KIND, type RuntimeObject } from '../../shared/kube/kinds.ts';
import {
  REGISTRY_PREFIX_SETTING,
  deploymentPrefix,
  registryPrefixCheck,
  underPrefix,
} from '../../shared/registry/prefix.ts';
import { runResolve } from '../../shared/steps/resolve/index.ts';
import { runTokenRefresh } from '../../shared/steps/tokenRefresh/index.ts';
import type { StepContext, StepReport, StepRunner } from '../../shared/look/contract.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import { configurationData } from '../../harness/configurationData.ts';
import { captureLogger } from '../../harness/logs.ts';
import { type MemoryKube, memoryKube } from '../helpers/memoryKube.ts';

const HOST = '123456789012.dkr.ecr.us-east-1.amazonaws.com';
const NOW = new Date('2026-11-30T12:00:00Z');
const HOUR = 3_600_000;
const VERSION = 'v0.11.1';

function registry(
  repository: string,
  mode: 'aws' | 'static' = 'aws',
): ReturnType<typeof ConfigurationSchema.parse>['registry'] {
  return ConfigurationSchema.parse({ registry: { repository, auth: { mode } } }).registry;
}

function clusterWith(
  repository: string,
  mode: 'aws' | 'static' = 'aws',
  objects: readonly Record<string, unknown>[] = [],
): MemoryKube {
  const kube = memoryKube();
  const values = {
    aicr: { versions: { [VERSION]: 'ghcr.io/nvidia/aicr:v0.11.1' }, digests: 'Optional' },
    registry: { repository, auth: { mode } },
  };
  kube.put(KIND.configMap, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CONFIGURATION.name, namespace: CONFIGURATION.namespace },
    data: configurationData(values),
  });
  for (const o of objects) kube.put(KIND.secret, o);
  return kube;
}

const runtime = {
  apiVersion: 'operator.aicr.run/v1alpha1',
  kind: 'ClusterRuntime',
  metadata: { name: 'cluster', uid: 'r', resourceVersion: '1', generation: 1 },
  spec: { aicrVersion: VERSION, criteria: { service: 'eks' } },
} as RuntimeObject;

/** Sets the function setting as a deployment would (undefined: unset, as in local mode). */
function setPrefix(prefix: string | undefined): void {
  if (prefix === undefined) Reflect.deleteProperty(process.env, REGISTRY_PREFIX_SETTING);
  else process.env[REGISTRY_PREFIX_SETTING] = prefix;
}

/** Runs a step with the deployment's prefix set as its function would have it (or unset), restoring the environment after. */
async function run(
  runner: StepRunner,
  kube: MemoryKube,
  prefix: string | undefined,
): Promise<{ report: StepReport; records: Record<string, unknown>[] }> {
  const before = process.env[REGISTRY_PREFIX_SETTING];
  setPrefix(prefix);
  try {
    const { log, records } = captureLogger();
    const ctx: StepContext = {
      kube,
      log,
      now: () => NOW,
      timings: DEFAULT_TIMINGS,
      runtime,
      item: { v: 1, step: 'resolve', runtime: { name: 'cluster', uid: 'r' }, cause: 'ADDED', attempt: 1 },
    };
    return { report: await runner(ctx), records: records() };
  } finally {
    setPrefix(before);
  }
}

/** Every request but a read: what a stalled step must not have sent. */
const writes = (kube: MemoryKube): string[] =>
  [...kube.requests.keys()].filter((r) => !r.startsWith('get ') && !r.startsWith('list '));

const resolvedOf = (report: StepReport): [string, string, string] | undefined => {
  const c = report.conditions?.[0];
  return c ? [c.type, c.reason, c.message] : undefined;
};

test('REG-2 a repository at the prefix or below it is under it; a neighbouring or other path, or none, is not', () => {
  assert.deepEqual(underPrefix(`${HOST}/aicr`, 'aicr'), { under: true });
  assert.deepEqual(underPrefix(`${HOST}/team/aicr`, 'team'), { under: true });
  assert.deepEqual(underPrefix(`${HOST}/team/aicr`, 'team/aicr'), { under: true });
  for (const [repository, prefix] of [
    [`${HOST}/aicr-staging`, 'aicr'],
    [`${HOST}/team/aicr`, 'aicr'],
    [`${HOST}/team`, 'team/aicr'],
    [HOST, 'aicr'],
  ] as const) {
    assert.equal(underPrefix(repository, prefix).under, false, `${repository} under ${prefix}`);
  }
  const outside = underPrefix(`${HOST}/team/aicr`, 'aicr');
  assert.equal(
    outside.under ? '' : outside.message,
    `configuration: registry.repository ${HOST}/team/aicr is outside this deployment's registry prefix aicr, and its roles may push and pull only under repository/aicr/*: ` +
      `set registry.repository to ${HOST}/aicr or below it (${HOST}/aicr/...) in the chart's values and upgrade the release, or deploy with --param=registryPrefix=team/aicr; resolution resumes by itself`,
  );
  const bare = underPrefix(HOST, 'aicr');
  assert.doesNotMatch(bare.under ? '' : bare.message, /--param/, 'no prefix covers a repository without a path');
});

test('REG-2 only aws mode with a prefix and a repository is checked; the prefix comes from the function setting', () => {
  assert.equal(deploymentPrefix({}), undefined);
  assert.equal(deploymentPrefix({ [REGISTRY_PREFIX_SETTING]: '' }), undefined);
  assert.equal(deploymentPrefix({ [REGISTRY_PREFIX_SETTING]: '/team/aicr/' }), 'team/aicr');
  assert.equal(
    registryPrefixCheck(registry(`${HOST}/other`), undefined).under,
    true,
    'no prefix (local mode): nothing checked',
  );
  assert.equal(
    registryPrefixCheck(registry(`${HOST}/other`, 'static'), 'aicr').under,
    true,
    'static mode: nothing checked',
  );
  assert.equal(registryPrefixCheck(registry(''), 'aicr').under, true, 'an empty repository has its own stall');
  assert.equal(registryPrefixCheck(registry(`${HOST}/other`), 'aicr').under, false);
});

test('REG-2 resolution outside the prefix stalls with InvalidConfiguration naming both values and both fixes, retries by itself, and runs or pushes nothing', async () => {
  const kube = clusterWith(`${HOST}/team/aicr`);
  const { report } = await run(runResolve, kube, 'aicr');
  const [type, reason, message] = resolvedOf(report) ?? [];
  assert.deepEqual(
    [type, reason, report.conditions?.[0]?.status, report.backoff],
    ['Resolved', 'InvalidConfiguration', 'False', true],
  );
  assert.match(
    message ?? '',
    /registry\.repository 123456789012\.dkr\.ecr\.us-east-1\.amazonaws\.com\/team\/aicr is outside this deployment's registry prefix aicr/,
  );
  assert.match(
    message ?? '',
    /set registry\.repository to \S+\/aicr or below it .* in the chart's values .* or deploy with --param=registryPrefix=team\/aicr/,
  );
  assert.deepEqual(writes(kube), [], 'no Job, no repository, no status written by the step itself');
});

test('REG-2 resolution under the prefix, without a prefix, or in static mode goes on past the check', async () => {
  for (const [repository, mode, prefix] of [
    [`${HOST}/aicr`, 'aws', 'aicr'],
    [`${HOST}/aicr/team`, 'aws', 'aicr'],
    [`${HOST}/team/aicr`, 'aws', undefined],
    [`${HOST}/team/aicr`, 'static', 'aicr'],
  ] as const) {
    const { report } = await run(runResolve, clusterWith(repository, mode), prefix);
    // Next comes discovery, which has no snapshot yet here.
    assert.deepEqual(
      resolvedOf(report)?.slice(0, 2),
      ['Resolved', 'Resolving'],
      `${repository} (${mode}, prefix ${prefix ?? 'none'})`,
    );
  }
});

const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** The Secret as the step last wrote it for this repository, fresh: nothing is due. */
function freshSecret(url: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: ARGOCD_REGISTRY_SECRET.name,
      namespace: ARGOCD_REGISTRY_SECRET.namespace,
      uid: 'u',
      labels: { 'argocd.argoproj.io/secret-type': 'repo-creds', 'app.kubernetes.io/managed-by': 'aicr-operator' },
      annotations: {
        [ANNOTATION.tokenExpiresAt]: new Date(NOW.getTime() + 11 * HOUR).toISOString(),
        [ANNOTATION.tokenRefreshedAt]: new Date(NOW.getTime() - HOUR).toISOString(),
      },
      managedFields: [
        { manager: FIELD_MANAGER.tokenRefresh, operation: 'Apply', fieldsV1: { 'f:data': { 'f:password': {} } } },
      ],
    },
    data: { url: b64(`oci://${url}`), type: b64('oci'), username: b64('AWS'), password: b64('pw') },
  };
}

test('REG-4 outside the prefix the token refresh writes no Secret for Argo CD, logs why with both fixes, and backs off', async () => {
  const kube = clusterWith(`${HOST}/team/aicr`);
  const { report, records } = await run(runTokenRefresh, kube, 'aicr');
  assert.deepEqual(report, { backoff: true });
  assert.deepEqual(writes(kube), []);
  assert.equal(kube.count('get', KIND.secret), 0, 'the Secret is not even looked at, so nothing is minted');
  const line = records.find((r) => r['message'] === 'registry credentials not written');
  assert.match(
    String(line?.['why']),
    /outside this deployment's registry prefix aicr.*--param=registryPrefix=team\/aicr/,
  );
});

test('REG-4 under the prefix, or without one, the token refresh goes on to judge the Secret it keeps', async () => {
  for (const [repository, prefix] of [
    [`${HOST}/aicr`, 'aicr'],
    [`${HOST}/team/aicr`, undefined],
  ] as const) {
    const kube = clusterWith(repository, 'aws', [freshSecret(repository)]);
    const { report } = await run(runTokenRefresh, kube, prefix);
    assert.equal(report.backoff, undefined, repository);
    assert.ok((report.recheckAfterMs ?? 0) > 0, 'a fresh Secret of ours: the next look is armed');
    assert.deepEqual(writes(kube), []);
  }
});
