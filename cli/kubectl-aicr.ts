// The kubectl plugin's entry: `kubectl aicr <verb>` (bin/kubectl-aicr runs this with node).
import { stringify } from 'yaml';
import { type Args, USAGE, UsageError, parseArgs } from './args.ts';
import { acknowledge, acknowledgedText } from './acknowledge.ts';
import { Refused, approve } from './approve.ts';
import { NotFound, describe } from './describe.ts';

function show(value: unknown, output: Args['output']): string {
  return output === 'json' ? JSON.stringify(value, null, 2) : stringify(value);
}

async function approveCommand(args: Args): Promise<number> {
  const [name] = args.positional;
  if (!name) throw new UsageError('approve needs the rollout: kubectl aicr approve NAME (kubectl aicr describe names the one waiting)');
  const r = await approve({ flags: args.kubectl }, name, args.timeoutMs);
  const given = r.status?.approval;
  if (args.output === 'human') console.log(`rollout ${name} approved: ${given?.message ?? ''}`);
  else console.log(show(given, args.output));
  return 0;
}

async function acknowledgeCommand(args: Args): Promise<number> {
  const [name, release] = args.positional;
  if (!name) throw new UsageError('acknowledge needs the rollout: kubectl aicr acknowledge ROLLOUT [RELEASE] (kubectl aicr describe names the one waiting)');
  const done = await acknowledge({ flags: args.kubectl }, name, release, args.timeoutMs);
  console.log(args.output === 'human' ? acknowledgedText(name, done) : show(done, args.output));
  return 0;
}

async function main(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.help || !args.verb) {
    console.log(USAGE);
    return args.verb || args.help ? 0 : 1;
  }
  const k = { flags: args.kubectl };
  if (args.verb === 'describe') {
    console.log(await describe(k, args.positional, args.output));
    return 0;
  }
  if (args.verb === 'approve') return approveCommand(args);
  if (args.verb === 'acknowledge') return acknowledgeCommand(args);
  throw new UsageError(`unknown command ${args.verb}\n\n${USAGE}`);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const known = err instanceof UsageError || err instanceof Refused || err instanceof NotFound;
    console.error(`error: ${known ? err.message : String((err as Error).message ?? err)}`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
