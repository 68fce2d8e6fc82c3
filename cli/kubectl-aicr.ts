// The kubectl plugin's entry: `kubectl aicr <verb>` (bin/kubectl-aicr runs this with node).
import { stringify } from 'yaml';
import { CONDITION } from '../shared/api/constants.ts';
import { type Args, USAGE, UsageError, parseArgs } from './args.ts';
import { acknowledge, acknowledgedText } from './acknowledge.ts';
import { Refused, approve } from './approve.ts';
import { NotFound, describe } from './describe.ts';
import { history, historyText } from './history.ts';
import { refreshCredentials, refreshedText } from './refreshCredentials.ts';
import { retriedText, retry } from './retry.ts';
import { revoke } from './revoke.ts';
import { allowDisruption } from './disrupt.ts';

function show(value: unknown, output: Args['output']): string {
  return output === 'json' ? JSON.stringify(value, null, 2) : stringify(value);
}

async function approveCommand(args: Args): Promise<number> {
  const [name] = args.positional;
  if (!name)
    throw new UsageError(
      'approve needs the rollout: kubectl aicr approve NAME (kubectl aicr describe names the one waiting)',
    );
  if (args.disrupt) {
    const given = await allowDisruption({ flags: args.kubectl }, name);
    console.log(
      args.output === 'human'
        ? `rollout ${name} may disrupt running GPU work: recorded by ${given.approvedBy} at ${given.approvedAt}`
        : show(given, args.output),
    );
    return 0;
  }
  const r = await approve({ flags: args.kubectl }, name, args.timeoutMs);
  const given = r.status?.approval;
  if (args.output === 'human') console.log(`rollout ${name} approved: ${given?.message ?? ''}`);
  else console.log(show(given, args.output));
  return 0;
}

async function acknowledgeCommand(args: Args): Promise<number> {
  const [name, release] = args.positional;
  if (!name)
    throw new UsageError(
      'acknowledge needs the rollout: kubectl aicr acknowledge ROLLOUT [RELEASE] (kubectl aicr describe names ' +
        'the one waiting)',
    );
  const done = await acknowledge({ flags: args.kubectl }, name, release, args.timeoutMs);
  console.log(args.output === 'human' ? acknowledgedText(name, done) : show(done, args.output));
  return 0;
}

async function revokeCommand(args: Args): Promise<number> {
  const [name] = args.positional;
  if (!name)
    throw new UsageError(
      'revoke needs the rollout: kubectl aicr revoke NAME [--reason TEXT] (kubectl aicr describe names the one ' +
        'in progress)',
    );
  const r = await revoke({ flags: args.kubectl }, name, args.reason, args.timeoutMs);
  const ready = r.status?.conditions?.find((c) => c.type === CONDITION.ready);
  console.log(args.output === 'human' ? `rollout ${name} revoked: ${ready?.message ?? ''}` : show(r, args.output));
  return 0;
}

async function retryCommand(args: Args): Promise<number> {
  const [name] = args.positional;
  if (!name)
    throw new UsageError('retry needs the rollout: kubectl aicr retry NAME (kubectl aicr describe names the last one)');
  const done = await retry({ flags: args.kubectl }, name, args.timeoutMs);
  console.log(
    args.output === 'human'
      ? retriedText(done)
      : show(
          { old: done.old.metadata.name, created: done.created.metadata.name, toPlan: done.created.spec.toPlan },
          args.output,
        ),
  );
  return 0;
}

async function refreshCredentialsCommand(args: Args): Promise<number> {
  const done = await refreshCredentials({ flags: args.kubectl }, args.timeoutMs);
  console.log(args.output === 'human' ? refreshedText(done) : show(done, args.output));
  return 0;
}

async function historyCommand(args: Args): Promise<number> {
  const rows = await history({ flags: args.kubectl });
  console.log(args.output === 'human' ? historyText(rows) : show(rows, args.output));
  return 0;
}

const COMMANDS: Record<string, (args: Args) => Promise<number>> = {
  history: historyCommand,
  approve: approveCommand,
  acknowledge: acknowledgeCommand,
  revoke: revokeCommand,
  retry: retryCommand,
  'refresh-credentials': refreshCredentialsCommand,
};

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
  const command = COMMANDS[args.verb];
  if (command) return command(args);
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
