// Deployment validation on the test cluster: recipes whose deployment checks the test chooses
// (through a --data overlay made from the environment's own, the way a recipe's checks are set
// when it is built), the validator image pinned to the digest the process node runs, and a GPU
// operator the checks can find (a Deployment of the pause image, run by the process node).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { STAND_IN_REGISTRY } from '../../harness/imageNames.ts';
import { knobPaths } from '../env/knobFiles.ts';
import { testConfiguration } from '../../harness/configuration.ts';
import { testEnv } from '../../harness/env.ts';
import { kubectlApply } from '../../harness/kubectlApply.ts';
import { kubectl, waitFor } from '../../harness/runtime.ts';
import { validatorPins } from '../../harness/validatorPins.ts';

const run = promisify(execFile);
/** The recipe overlay the test criteria (eks, h100, training, ubuntu) end on. */
const LEAF_OVERLAY = 'overlays/h100-eks-ubuntu-training.yaml';
const CRITERIA = ['--service', 'eks', '--accelerator', 'h100', '--intent', 'training', '--os', 'ubuntu'];

function aicrBin(): string {
  const bin = process.env['TESTENV_AICR_BIN'];
  if (!bin) throw new Error('TESTENV_AICR_BIN is not set: source test/env/.state/env');
  return bin;
}

/** The test configuration with validator images pinned as given (this environment's pins by default). */
export function pinnedConfiguration(pins?: Record<string, string>): Promise<Record<string, unknown>> {
  const base = testConfiguration() as { aicr: Record<string, unknown> };
  return Promise.resolve({ ...base, aicr: { ...base.aicr, validatorImages: pins ?? validatorPins() } });
}

/** A chainsaw assert that the named Deployment is available, waiting at most `timeout`. */
export function deploymentAssert(name: string, namespace: string, timeout = '20s'): string {
  const test = {
    apiVersion: 'chainsaw.kyverno.io/v1alpha1',
    kind: 'Test',
    metadata: { name: `${name}-health` },
    spec: {
      timeouts: { assert: timeout },
      steps: [
        {
          name: 'available',
          try: [
            {
              assert: {
                resource: {
                  apiVersion: 'apps/v1',
                  kind: 'Deployment',
                  metadata: { name, namespace },
                  status: { '(availableReplicas > `0`)': true },
                },
              },
            },
          ],
        },
      ],
    },
  };
  return stringify(test);
}

export interface RecipeChoice {
  readonly checks: readonly string[];
  /** Component → chainsaw assert YAML its expected-resources check runs. */
  readonly asserts?: Readonly<Record<string, string>>;
  /** Readiness constraints to add (name → value), checked against the snapshot before any check. */
  readonly constraints?: Readonly<Record<string, string>>;
  /** Components an override turns off: the recipe is the one the bundle records, without them. */
  readonly disabled?: readonly string[];
}

async function overlayDir(choice: RecipeChoice): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'aicr-validation-data-'));
  await cp(knobPaths(testEnv().TESTENV_STATE).aicrData, dir, { recursive: true });
  const file = join(dir, LEAF_OVERLAY);
  // The environment's overlay holds only the files it changed; the rest are AICR's own, as up.sh unpacked them.
  const source = existsSync(file) ? file : join(testEnv().TESTENV_STATE, 'aicr-recipes', LEAF_OVERLAY);
  const doc = parse(await readFile(source, 'utf8')) as {
    spec: Record<string, unknown> & {
      validation: { deployment: Record<string, unknown> };
      constraints?: { name: string; value: string }[];
    };
  };
  doc.spec.validation.deployment['checks'] = [...choice.checks];
  doc.spec['componentRefs'] = Object.entries(choice.asserts ?? {}).map(([name, healthCheckAsserts]) => ({
    name,
    healthCheckAsserts,
  }));
  doc.spec.constraints = [
    ...(doc.spec.constraints ?? []),
    ...Object.entries(choice.constraints ?? {}).map(([name, value]) => ({ name, value })),
  ];
  await writeFile(file, stringify(doc));
  return dir;
}

/** The recipe text a plan records: the real aicr recipe (and bundle, when components are turned off) on the chosen overlay. */
export async function validationRecipe(choice: RecipeChoice): Promise<string> {
  const dir = await overlayDir(choice);
  // Outside the overlay: bundle copies the overlay into its output.
  const out = await mkdtemp(join(tmpdir(), 'aicr-validation-out-'));
  const recipe = join(out, 'recipe.yaml');
  await run(aicrBin(), ['recipe', ...CRITERIA, '--data', dir, '-o', recipe]);
  if (!choice.disabled?.length) return readFile(recipe, 'utf8');
  const sets = choice.disabled.flatMap((c) => ['--set', `${c}:enabled=false`]);
  await run(aicrBin(), [
    'bundle',
    '--recipe',
    recipe,
    '--deployer',
    'helm',
    '--data',
    dir,
    ...sets,
    '--output',
    join(out, 'bundle'),
  ]);
  return readFile(join(out, 'bundle', 'recipe.yaml'), 'utf8');
}

export const GPU_OPERATOR = { name: 'gpu-operator', namespace: 'gpu-operator' } as const;

/** A GPU operator the checks find healthy: a Deployment labelled app=gpu-operator, one Pod running. */
export async function runGpuOperator(): Promise<void> {
  const { name, namespace } = GPU_OPERATOR;
  const labels = { app: name };
  // The fixture gpu-operator release an earlier test file had Argo CD deploy names its
  // Deployment the same, with another selector, which a Deployment cannot change.
  await kubectl('delete', 'deployment', name, '-n', namespace, '--ignore-not-found', '--wait=true');
  await kubectlApply(
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            tolerations: [{ operator: 'Exists' }],
            containers: [{ name: 'operator', image: `${STAND_IN_REGISTRY}/pause:1` }],
          },
        },
      },
    },
  );
  await waitFor(
    'the GPU operator Deployment available',
    async () => {
      const out = await kubectl(
        'get',
        'deployment',
        name,
        '-n',
        namespace,
        '-o',
        'jsonpath={.status.availableReplicas}',
      );
      return Number(out) > 0 ? true : undefined;
    },
    60_000,
  );
}

/** No GPU operator: its Deployment and Pods gone. */
export async function removeGpuOperator(): Promise<void> {
  const { namespace } = GPU_OPERATOR;
  await kubectl('delete', 'deployment', '--all', '-n', namespace, '--ignore-not-found', '--wait=true');
  await waitFor(
    'no GPU operator Pods',
    async () => ((await kubectl('get', 'pods', '-n', namespace, '-o', 'name')).trim() === '' ? true : undefined),
    60_000,
  );
}
