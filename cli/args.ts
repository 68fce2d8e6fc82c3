// The plugin's command line. kubectl hands a plugin its arguments untouched, so the plugin reads
// kubectl's own connection flags itself and passes them on to every kubectl it runs: whatever
// kubectl accepts (--kubeconfig, --context, --as, exec credentials) works the same here.

/** kubectl's global flags that take a value; each is passed through to kubectl. */
const KUBECTL_VALUE_FLAGS = new Set([
  '--kubeconfig',
  '--context',
  '--cluster',
  '--user',
  '--as',
  '--as-group',
  '--as-uid',
  '--token',
  '--server',
  '-s',
  '--request-timeout',
  '--certificate-authority',
  '--client-certificate',
  '--client-key',
  '--tls-server-name',
  '--namespace',
  '-n',
]);
const KUBECTL_SWITCHES = new Set(['--insecure-skip-tls-verify']);

export type Output = 'human' | 'json' | 'yaml';

export interface Args {
  readonly verb: string | undefined;
  readonly positional: readonly string[];
  /** Flags for kubectl, as given. */
  readonly kubectl: readonly string[];
  readonly output: Output;
  /** How long approve and acknowledge wait for the control plane to answer. */
  readonly timeoutMs: number;
  /** Why, for revoke (--reason). */
  readonly reason: string | undefined;
  /** approve --disrupt: let the rollout disrupt running GPU work. */
  readonly disrupt: boolean;
  readonly help: boolean;
}

export class UsageError extends Error {}

function parseOutput(value: string): Output {
  if (value === 'json' || value === 'yaml') return value;
  throw new UsageError(`-o ${value}: the output formats are json and yaml (human-readable without -o)`);
}

function parseTimeout(value: string): number {
  const m = /^(\d+)(ms|s|m)?$/.exec(value);
  if (!m) throw new UsageError(`--timeout ${value}: give a duration such as 90s or 5m`);
  const unit = m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1_000;
  return Number(m[1]) * unit;
}

interface Acc {
  verb?: string;
  positional: string[];
  kubectl: string[];
  output: Output;
  timeoutMs: number;
  reason?: string;
  disrupt: boolean;
  help: boolean;
}

function own(flag: string, value: string, acc: Acc): boolean {
  if (flag === '-o' || flag === '--output') acc.output = parseOutput(value);
  else if (flag === '--timeout') acc.timeoutMs = parseTimeout(value);
  else if (flag === '--reason') acc.reason = value;
  else return false;
  return true;
}

function splitFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=');
  return arg.startsWith('--') && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
}

const OWN_VALUE_FLAGS = new Set(['-o', '--output', '--timeout', '--reason']);
const takesValue = (flag: string): boolean => OWN_VALUE_FLAGS.has(flag) || KUBECTL_VALUE_FLAGS.has(flag);

function bare(arg: string, acc: Acc): void {
  if (KUBECTL_SWITCHES.has(arg)) acc.kubectl.push(arg);
  else if (arg === '--disrupt') acc.disrupt = true;
  else if (arg.startsWith('-')) throw new UsageError(`unknown flag ${arg}`);
  else if (acc.verb === undefined) acc.verb = arg;
  else acc.positional.push(arg);
}

/** Consumes argv[i] (and its value, when separate); returns how many were used. */
function take(argv: readonly string[], i: number, acc: Acc): number {
  const arg = argv[i] ?? '';
  const [flag, inline] = splitFlag(arg);
  if (flag === '-h' || flag === '--help') {
    acc.help = true;
    return 1;
  }
  if (!takesValue(flag)) {
    bare(arg, acc);
    return 1;
  }
  const value = inline ?? argv[i + 1];
  if (value === undefined) throw new UsageError(`${flag} needs a value`);
  if (!own(flag, value, acc)) acc.kubectl.push(`${flag}=${value}`);
  return inline === undefined ? 2 : 1;
}

export function parseArgs(argv: readonly string[]): Args {
  const acc: Acc = { positional: [], kubectl: [], output: 'human', timeoutMs: 120_000, disrupt: false, help: false };
  for (let i = 0; i < argv.length;) i += take(argv, i, acc);
  return {
    verb: acc.verb,
    positional: acc.positional,
    kubectl: acc.kubectl,
    output: acc.output,
    timeoutMs: acc.timeoutMs,
    reason: acc.reason,
    disrupt: acc.disrupt,
    help: acc.help,
  };
}

export const USAGE = `kubectl aicr: the AICR control plane's commands

  kubectl aicr describe [cluster | rollout NAME | NAME]   the runtime, or one rollout: message, steps, approval,
                                                         the step in flight and a manual release's recorded steps
  kubectl aicr history                                   every rollout kept, newest first, of this runtime and of
                                                         deleted ones: what moved, who approved it, how it ended
  kubectl aicr approve NAME [--timeout 2m]               approve a rollout as yourself and wait for the verdict
  kubectl aicr approve --disrupt NAME                    let a rollout stalled on WorkloadsStillRunning go ahead
                                                         although protected GPU work still runs (recorded as you)
  kubectl aicr acknowledge NAME [RELEASE] [--timeout 2m] say a manual release's recorded steps are done (the
                                                         step awaiting acknowledgement unless RELEASE is given)
                                                         and wait until the control plane moves it on
  kubectl aicr revoke NAME [--reason TEXT] [--timeout 2m]
                                                         stop a rollout that has not ended where it stands
                                                         (nothing more is written; moved releases stay) and
                                                         wait until it ends Revoked
  kubectl aicr retry NAME [--timeout 2m]                 replace a rollout that has not ended, or one that ended
                                                         Failed, Expired or Revoked, with a new rollout to the
                                                         same target from the current state; prints its name
                                                         (it needs approval like any other)
  kubectl aicr refresh-credentials [--timeout 2m]       have the control plane mint a new ECR token for Argo CD
                                                         now (registry.auth.mode aws) and wait until it is written

Flags: -o json|yaml for scripts; kubectl's own --kubeconfig, --context, --as, --as-group,
--request-timeout and credentials flags work as with kubectl.`;
