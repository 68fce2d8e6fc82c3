// The step table seen as serverless.yml sees it: one function, queue and role per queue, however
// many steps share it.
import { IDENTITY_GROUP } from '../../shared/api/constants.ts';
import { STEP_TABLE, queueSettings, type StepRow } from '../../shared/steps/table.ts';

export interface QueueView {
  readonly queue: string;
  /** Its resources' logical-ID stem: ResolveQueue, ResolveRole. */
  readonly stem: string;
  /** What serverless names its function's resource (hyphens spelled Dash): TokenDashrefreshLambdaFunction. */
  readonly functionResource: string;
  readonly settings: ReturnType<typeof queueSettings>;
  readonly timeoutSeconds: number;
  readonly description: string;
  readonly environment: readonly [string, string][];
  readonly sends: string;
  readonly timers: string;
  readonly statements: readonly string[];
  readonly groups: readonly string[];
  readonly steps: readonly string[];
}

const stemOf = (queue: string): string =>
  queue.replace(/(^|-)([a-z0-9])/g, (_, __: string, c: string) => c.toUpperCase());
const functionResourceOf = (queue: string): string =>
  `${queue.charAt(0).toUpperCase()}${queue.slice(1).replace(/-/g, 'Dash').replace(/_/g, 'Underscore')}LambdaFunction`;

/** A plain YAML scalar, so it must not read as a mapping or a comment. */
function plain(text: string): string {
  if (/: | #|^['"&*!|>%@`{[]/.test(text) || text.length > 256)
    throw new Error(`not a plain scalar of at most 256 characters: ${text}`);
  return text;
}

function viewOf(queue: string, rows: readonly StepRow[]): QueueView {
  const first = (pick: (r: StepRow) => string | undefined): string | undefined =>
    rows.map(pick).find((x) => x !== undefined);
  return {
    queue,
    stem: stemOf(queue),
    functionResource: functionResourceOf(queue),
    settings: queueSettings(queue),
    timeoutSeconds: Math.max(...rows.map((r) => r.timeoutSeconds)),
    description: plain(rows.map((r) => r.aws.description).join('; ')),
    environment: rows.flatMap((r) => Object.entries(r.aws.environment ?? {})),
    sends: first((r) => r.aws.sends) ?? 'Retries',
    timers: first((r) => r.aws.timers) ?? 'Long timers',
    statements: rows.flatMap((r) => r.aws.statements ?? []),
    groups: rows.map((r) => IDENTITY_GROUP.step(r.name)),
    steps: rows.map((r) => r.name),
  };
}

export function queueViews(table: readonly StepRow[] = STEP_TABLE): QueueView[] {
  return [...new Set(table.map((r) => r.queue))].map((q) =>
    viewOf(
      q,
      table.filter((r) => r.queue === q),
    ),
  );
}
