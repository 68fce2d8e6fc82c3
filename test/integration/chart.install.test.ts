// The chart installed on the test cluster by the pinned Helm 4, the way an operator upgrades it,
// including the two namespace-label failures the runbook describes after AICR relabeled a
// namespace it ran in (field manager aicr) and how each is fixed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import {
  AICR_SNAPSHOT_SERVICE_ACCOUNT,
  CHART,
  CONFIGURATION,
  LABEL,
  NAMESPACES,
  SECURITY_ADMISSION,
} from '../../shared/api/constants.ts';
import { CHART_CRDS, helm, installChart } from '../../harness/chart.ts';
import { WORKLOAD_BINDING } from '../../shared/rbac/workloadAdmission.ts';
import { runbook } from '../helpers/runbook.ts';
import { testEnv } from '../../harness/env.ts';
import { kubectlAs, stepIdentity } from '../helpers/impersonate.ts';
import { ensureCrds, kubectl } from '../../harness/runtime.ts';

const AICR_FIELD_MANAGER = 'aicr';
const CHART_NAMESPACES = [NAMESPACES.discovery, NAMESPACES.jobs, NAMESPACES.validation];

interface Meta {
  metadata: {
    resourceVersion: string;
    labels?: Record<string, string>;
    managedFields?: { manager: string; fieldsV1?: unknown }[];
  };
}
const getJson = async <T>(...args: string[]): Promise<T> =>
  JSON.parse(await kubectl('get', ...args, '-o', 'json')) as T;
const namespace = (name: string): Promise<Meta> => getJson<Meta>('namespace', name, '--show-managed-fields');

async function revision(): Promise<number> {
  const [release] = JSON.parse(
    await helm('list', '-n', CHART.namespace, '--kubeconfig', testEnv().KUBECONFIG, '-o', 'json'),
  ) as { revision: string; status: string }[];
  assert.equal(release?.status, 'deployed');
  return Number(release.revision);
}

/** What kubectl shows of each object the chart owns, by its resourceVersion. */
async function versions(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const ns of CHART_NAMESPACES) out[`namespace/${ns}`] = (await namespace(ns)).metadata.resourceVersion;
  for (const crd of CHART_CRDS) out[`crd/${crd}`] = (await getJson<Meta>('crd', crd)).metadata.resourceVersion;
  out['configmap'] = (
    await getJson<Meta>('configmap', '-n', CONFIGURATION.namespace, CONFIGURATION.name)
  ).metadata.resourceVersion;
  return out;
}

/** AICR's launchers merge-patch this label onto the namespace they run in. */
const relabelAsAicr = (ns: string, ...more: string[]): Promise<string> =>
  kubectl(
    'label',
    'namespace',
    ns,
    `${LABEL.managedBy}=aicr`,
    ...more,
    '--overwrite',
    `--field-manager=${AICR_FIELD_MANAGER}`,
  );

before(async () => {
  await ensureCrds();
});
after(async () => {
  // Whatever a test left behind, the rest of the suite finds the chart installed.
  await kubectl('label', 'namespace', ...CHART_NAMESPACES, `${LABEL.managedBy}=Helm`, '--overwrite');
  await installChart();
});

test('helm upgrade --install of the chart twice in a row succeeds and the second run changes nothing', async () => {
  const start = await revision();
  await installChart();
  const first = await versions();
  await installChart();
  assert.equal(await revision(), start + 2);
  assert.deepEqual(await versions(), first, 'no object written again');
  for (const crd of CHART_CRDS) await kubectl('wait', '--for=condition=Established', '--timeout=5s', `crd/${crd}`);
  const cm = await getJson<{ data: Record<string, string> }>(
    'configmap',
    '-n',
    CONFIGURATION.namespace,
    CONFIGURATION.name,
  );
  const config = parse(cm.data[CONFIGURATION.key] ?? '') as {
    aicr: { versions: Record<string, string> };
    registry: { repository: string };
  };
  assert.deepEqual(config.aicr.versions, { 'v0.11.1': 'ghcr.io/nvidia/aicr:v0.11.1' });
  assert.equal(config.registry.repository, `${testEnv().TESTENV_REGISTRY}/aicr`);
});

test('NS-1 after AICR relabels aicr-discovery an upgrade fails on the conflict; --force-conflicts takes back only the chart field', async () => {
  await relabelAsAicr(NAMESPACES.discovery, 'aicr.run/touched=yes');
  await assert.rejects(installChart({ forceConflicts: false }), (err: Error) => {
    assert.match(err.message, /conflict/i);
    assert.match(err.message, new RegExp(`${LABEL.managedBy.replace(/[./]/g, '\\$&')}`));
    assert.match(err.message, new RegExp(`"${AICR_FIELD_MANAGER}"`));
    return true;
  });
  assert.equal(
    (await namespace(NAMESPACES.discovery)).metadata.labels?.[LABEL.managedBy],
    'aicr',
    'the failed upgrade wrote nothing',
  );

  await installChart();
  const ns = await namespace(NAMESPACES.discovery);
  assert.equal(ns.metadata.labels?.[LABEL.managedBy], 'Helm');
  assert.equal(ns.metadata.labels?.['aicr.run/touched'], 'yes', 'a label the chart does not declare stays');
  const aicrOwns = JSON.stringify(
    ns.metadata.managedFields?.find((f) => f.manager === AICR_FIELD_MANAGER)?.fieldsV1 ?? {},
  );
  assert.doesNotMatch(aicrOwns, /app\.kubernetes\.io\/managed-by/, 'aicr no longer owns the label');
  await kubectl('label', 'namespace', NAMESPACES.discovery, 'aicr.run/touched-');
});

test("NS-1 COND-5 after an uninstall an install refuses the kept namespaces AICR relabeled until the runbook's label command, run as written, gives the label back to Helm", async () => {
  await helm('uninstall', CHART.release, '-n', CHART.namespace, '--kubeconfig', testEnv().KUBECONFIG, '--wait');
  for (const ns of CHART_NAMESPACES) await namespace(ns);
  for (const crd of CHART_CRDS) await getJson<Meta>('crd', crd);
  await assert.rejects(
    getJson<Meta>('configmap', '-n', CONFIGURATION.namespace, CONFIGURATION.name),
    /NotFound/,
    'the configuration went with the release',
  );
  // The policies that read a parameter stay, so the API server never stops watching their parameter kinds.
  for (const name of [SECURITY_ADMISSION.workloads, SECURITY_ADMISSION.applicationOwnership])
    await getJson<Meta>('validatingadmissionpolicy', name);
  await getJson<Meta>('validatingadmissionpolicybinding', WORKLOAD_BINDING);

  await relabelAsAicr(NAMESPACES.discovery);
  await relabelAsAicr(NAMESPACES.validation);
  await assert.rejects(installChart(), (err: Error) => {
    assert.match(
      err.message,
      /Namespace "aicr-(discovery|validation)" .*exists and cannot be imported into the current release/,
    );
    assert.match(err.message, /key "app\.kubernetes\.io\/managed-by" must equal "Helm": current value is "aicr"/);
    return true;
  });

  const fix = await runbook(
    'kubectl label namespace aicr-discovery aicr-validation app.kubernetes.io/managed-by=Helm --overwrite',
  );
  assert.equal(fix.code, 0, fix.stderr);
  await installChart();
  assert.equal(await revision(), 1);
  await getJson<Meta>('configmap', '-n', CONFIGURATION.namespace, CONFIGURATION.name);
  await assertWorkloadPolicyReadsTheNewConfiguration();
});

/**
 * After an uninstall and a new install the workload policy still reads aicr-config: the policies
 * that read a parameter stay on uninstall, so the API server never stops watching ConfigMaps for
 * them (stopped once, its copy stayed frozen without aicr-config and let every Job through).
 */
async function assertWorkloadPolicyReadsTheNewConfiguration(): Promise<void> {
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'chart-reinstall-foreign-image', namespace: NAMESPACES.discovery },
    spec: {
      template: {
        spec: {
          serviceAccountName: AICR_SNAPSHOT_SERVICE_ACCOUNT,
          restartPolicy: 'Never',
          containers: [{ name: 'x', image: 'docker.io/library/busybox:latest' }],
        },
      },
    },
  };
  const refusal = await kubectlAs(stepIdentity('snapshot'), ['create', '--dry-run=server', '-f', '-'], job);
  assert.equal(refusal.ok, false, 'a foreign image was refused after the reinstall');
  assert.match(
    refusal.stderr,
    new RegExp(
      `ValidatingAdmissionPolicy '${SECURITY_ADMISSION.workloads}' .*denied request: image docker\\.io/library/busybox:latest is not pinned`,
    ),
  );
}
