// The control plane's chart (infra/chart) as tests and local mode install it: with the pinned
// Helm 4 that test/env/bootstrap.sh builds, server-side apply, and the values in
// harness/chart-values.yaml plus the test registry's address and the validator image pins.
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ApiextensionsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { API_GROUP, CHART } from '../shared/api/constants.ts';
import { ALL_CRDS } from '../shared/api/crd.ts';
import { CHART_DIR } from '../infra/chartPaths.ts';
import { adminKubeConfig, testEnv } from './env.ts';
import { validatorPins } from './validatorPins.ts';

const run = promisify(execFile);
const LIB_SH = fileURLToPath(new URL('../test/env/lib.sh', import.meta.url));
export const CHART_VALUES = fileURLToPath(new URL('./chart-values.yaml', import.meta.url));
/** Release label (on Helm's release Secret) naming what the release was installed from. */
const INPUT_LABEL = 'testenv.aicr.local/chart-input';
/** Names of the CRDs the chart carries. */
export const CHART_CRDS = Object.keys(ALL_CRDS).map((plural) => `${plural}.${API_GROUP}`);

let helmPath: string | undefined;
/** The pinned Helm: from the test environment's env file, else where bootstrap.sh puts it. */
export function helmBin(): string {
  helmPath ??=
    process.env['TESTENV_HELM'] ??
    execFileSync('bash', ['-c', '. "$1" && printf %s "$HELM_BIN_DIR/helm"', 'lib.sh', LIB_SH], { encoding: 'utf8' });
  return helmPath;
}

export async function helm(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run(helmBin(), args, { maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`helm ${args.slice(0, 2).join(' ')} failed: ${stderr.trim() || String(err)}`, { cause: err });
  }
}

/**
 * The values tests and local mode install with: the fixture, and the registry and the
 * validator image pins of this environment (both change with it), so the chart installs
 * deployment validation as an operator's values would.
 */
export function chartValueArgs(): string[] {
  return [
    '-f',
    CHART_VALUES,
    '--set',
    `registry.repository=${testEnv().TESTENV_REGISTRY}/aicr`,
    '--set-json',
    `aicr.validatorImages=${JSON.stringify(validatorPins())}`,
  ];
}

export interface RenderedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  readonly [field: string]: unknown;
}

function isRenderedObject(doc: unknown): doc is RenderedObject {
  if (typeof doc !== 'object' || doc === null) return false;
  const { kind, metadata } = doc as { kind?: unknown; metadata?: { name?: unknown } };
  return typeof kind === 'string' && typeof metadata?.name === 'string';
}

/** The objects `helm template` renders from the chart with the given value flags; no cluster involved. */
export async function renderChart(
  valueArgs: readonly string[] = [],
  namespace: string = CHART.namespace,
): Promise<RenderedObject[]> {
  const text = await helm('template', CHART.release, CHART_DIR, '-n', namespace, ...valueArgs);
  const docs = parseAllDocuments(text).map((d) => d.toJS() as unknown);
  const objects = docs.filter(isRenderedObject);
  if (objects.length !== docs.filter((d) => d !== null).length)
    throw new Error('helm template rendered a document that is not a Kubernetes object');
  return objects;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** What an install is made of: every chart file, the values, and the Helm that applies them. */
function installInput(valueArgs: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of [...filesUnder(CHART_DIR), CHART_VALUES])
    hash
      .update(`${relative(CHART_DIR, file)}\0`)
      .update(readFileSync(file))
      .update('\0');
  hash.update(valueArgs.join('\0')).update(helmBin());
  return hash.digest('hex').slice(0, 40);
}

/**
 * `helm upgrade --install` as the runbook's operator runs it on Helm 4: server-side apply, and
 * --force-conflicts so the chart takes back the fields it declares (a namespace label AICR
 * relabeled, say) instead of failing. Waits until what it applied is ready (CRDs Established).
 */
export async function installChart({ forceConflicts = true } = {}): Promise<string> {
  const values = chartValueArgs();
  return helm(
    'upgrade',
    '--install',
    CHART.release,
    CHART_DIR,
    '-n',
    CHART.namespace,
    '--create-namespace',
    '--server-side=true',
    ...(forceConflicts ? ['--force-conflicts'] : []),
    '--wait',
    '--timeout',
    '2m',
    '--kubeconfig',
    testEnv().KUBECONFIG,
    '--labels',
    `${INPUT_LABEL}=${installInput(values)}`,
    ...values,
  );
}

async function releaseIsCurrent(): Promise<boolean> {
  const selector = `owner=helm,name=${CHART.release},status=deployed,${INPUT_LABEL}=${installInput(chartValueArgs())}`;
  const { items } = await adminKubeConfig()
    .makeApiClient(CoreV1Api)
    .listNamespacedSecret({ namespace: CHART.namespace, labelSelector: selector });
  return items.length > 0;
}

/** A test may delete a CRD to watch the control plane start against a fresh one. */
async function crdsServed(): Promise<boolean> {
  const { items } = await adminKubeConfig().makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
  const established = new Set(
    items
      .filter((crd) => crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'))
      .map((crd) => crd.metadata?.name),
  );
  return CHART_CRDS.every((name) => established.has(name));
}

/**
 * Installs the chart unless the deployed release already carries the hash of this chart and
 * these values and its CRDs are served: most test files call this, and two API reads cost far
 * less than a helm run.
 */
export async function ensureChart(): Promise<void> {
  const [current, served] = await Promise.all([releaseIsCurrent(), crdsServed()]);
  if (current && served) return;
  await installChart();
}
