// STAND-IN, not AICR: what the test environment's testenv.aicr.local/aicr-upgrade-check image
// runs for `aicr upgrade-check` (see ./upgrade-check/aicr). It has none of AICR's transition
// records: it reads the two recipes (`--from`, `--to`: cm://namespace/name or a file), calls a
// component changed when its componentRef differs in any field, and gives each changed one the
// verdict the test knob names (knobFiles.ts UpgradeCheckKnob), `safe` when none; an unchanged
// component is `safe`. It writes a JSON report of `components[]` `{name, verdict, reason}`
// where `-o` says, and exits 0 when every component is safe and 2 otherwise, as upgrade-check
// does. Its output says it is a stand-in, so no test or person can take it for AICR's answer.
import { readFile, writeFile } from 'node:fs/promises';
import { ApiException, CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { CM_OUTPUT_KEY } from '../../../shared/aicr/stages.ts';
import { UpgradeCheckKnob, type UpgradeCheckVerdict } from '../knobFiles.ts';

const STAND_IN = "aicr upgrade-check STAND-IN (test environment; not AICR's compatibility logic)";

/** Bad input, as AICR reports it: INVALID_REQUEST, exit 2. */
class InvalidInput extends Error {}

interface Args {
  readonly from: string;
  readonly to: string;
  readonly output: string | undefined;
}

const FLAGS: Readonly<Record<string, keyof Args>> = {
  '-f': 'from',
  '--from': 'from',
  '--to': 'to',
  '-o': 'output',
  '--output': 'output',
};

function parseArgs(argv: readonly string[]): Args {
  const found: Partial<Record<keyof Args, string>> = {};
  for (let i = 0; i < argv.length; i++) {
    const [flag = '', inline] = (argv[i] ?? '').split(/=(.*)/s, 2);
    const key = FLAGS[flag];
    if (!key) continue;
    const value = inline ?? argv[++i];
    if (value !== undefined) found[key] = value;
  }
  if (!found.from || !found.to)
    throw new InvalidInput('this stand-in needs both --from and --to (a recipe as cm://namespace/name or a file)');
  return { from: found.from, to: found.to, output: found.output };
}

function cmRef(uri: string): { namespace: string; name: string } | undefined {
  const m = /^cm:\/\/([^/]+)\/([^/]+)$/.exec(uri);
  return m ? { namespace: m[1] ?? '', name: m[2] ?? '' } : undefined;
}

let client: CoreV1Api | undefined;
/** The API server as the Pod's service account reaches it, as AICR's cm:// does. */
function core(): CoreV1Api {
  if (!client) {
    const kc = new KubeConfig();
    kc.loadFromCluster();
    client = kc.makeApiClient(CoreV1Api);
  }
  return client;
}

async function readSource(uri: string): Promise<string> {
  const ref = cmRef(uri);
  if (!ref) return readFile(uri, 'utf8');
  const cm = await core().readNamespacedConfigMap(ref);
  const text = cm.data?.[CM_OUTPUT_KEY] ?? Object.values(cm.data ?? {})[0];
  if (text === undefined) throw new InvalidInput(`ConfigMap ${ref.namespace}/${ref.name} holds no recipe`);
  return text;
}

interface Component {
  /** Everything but the name, as canonical JSON: any difference is a change. */
  readonly body: string;
  readonly version: string | undefined;
}
type Components = ReadonlyMap<string, Component>;

/** componentRefs by name. */
function componentsOf(uri: string, text: string): Components {
  const doc = parse(text) as { kind?: unknown; componentRefs?: unknown } | null;
  if (doc?.kind !== 'RecipeResult' || !Array.isArray(doc.componentRefs))
    throw new InvalidInput(`${uri} is not a RecipeResult with componentRefs`);
  const out = new Map<string, Component>();
  for (const ref of doc.componentRefs as Record<string, unknown>[]) {
    const { name, ...rest } = ref;
    const sorted = Object.fromEntries(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)));
    out.set(String(name), {
      body: JSON.stringify(sorted),
      version: typeof rest['version'] === 'string' ? rest['version'] : undefined,
    });
  }
  return out;
}

async function knobVerdicts(): Promise<UpgradeCheckKnob['verdicts']> {
  const file = process.env['AICR_STAND_IN_KNOB'];
  const text = file ? await readFile(file, 'utf8').catch(() => '') : '';
  try {
    const parsed = UpgradeCheckKnob.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.verdicts : {};
  } catch {
    return {};
  }
}

interface ComponentReport {
  readonly name: string;
  readonly verdict: UpgradeCheckVerdict;
  readonly reason: string;
  readonly fromVersion?: string;
  readonly toVersion?: string;
}

function changeOf(a: Component | undefined, b: Component | undefined): string {
  if (!a) return 'STAND_IN_ADDED';
  if (!b) return 'STAND_IN_REMOVED';
  return a.version !== b.version ? 'STAND_IN_VERSION_CHANGED' : 'STAND_IN_VALUES_CHANGED';
}

function compare(from: Components, to: Components, knob: UpgradeCheckKnob['verdicts']): ComponentReport[] {
  const names = [...new Set([...from.keys(), ...to.keys()])].sort();
  return names.map((name) => {
    const [a, b] = [from.get(name), to.get(name)];
    const versions = {
      ...(a?.version ? { fromVersion: a.version } : {}),
      ...(b?.version ? { toVersion: b.version } : {}),
    };
    if (a && b && a.body === b.body) return { name, verdict: 'safe', reason: 'STAND_IN_UNCHANGED', ...versions };
    const steered = knob[name];
    return { name, verdict: steered?.verdict ?? 'safe', reason: steered?.reason ?? changeOf(a, b), ...versions };
  });
}

async function writeReport(output: string | undefined, text: string): Promise<void> {
  const ref = output ? cmRef(output) : undefined;
  if (!output) return void process.stdout.write(`${text}\n`);
  if (!ref) return writeFile(output, text);
  const body = { metadata: { name: ref.name, namespace: ref.namespace }, data: { [CM_OUTPUT_KEY]: text } };
  try {
    await core().createNamespacedConfigMap({ namespace: ref.namespace, body });
  } catch (err) {
    if (!(err instanceof ApiException) || err.code !== 409) throw err;
    await core().patchNamespacedConfigMap(
      { ...ref, body: { data: body.data } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv);
  const [from, to] = await Promise.all([readSource(args.from), readSource(args.to)]);
  const components = compare(componentsOf(args.from, from), componentsOf(args.to, to), await knobVerdicts());
  const failing = components.filter((c) => c.verdict !== 'safe').length;
  const report = {
    standIn: STAND_IN,
    version: process.env['AICR_STAND_IN_VERSION'] ?? '',
    from: args.from,
    to: args.to,
    components,
    summary: { total: components.length, failing },
  };
  await writeReport(args.output, JSON.stringify(report, null, 2));
  process.stderr.write(`${STAND_IN}: ${components.length} components, ${failing} not safe\n`);
  return failing > 0 ? 2 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const invalid = err instanceof InvalidInput;
    process.stderr.write(
      `${STAND_IN}: error: [${invalid ? 'INVALID_REQUEST' : 'INTERNAL'}] ${(err as Error).message}\n`,
    );
    process.exit(invalid ? 2 : 8);
  },
);
