// The bench's goals, in one table: the only figures that can make `npm run bench` fail. Every
// other figure is printed and written to the results, never judged, so a figure can be watched
// without turning each change in it into a failed run.

/** What the goals read from a run's figures; a phase that failed or did not run leaves its part out. */
export interface Measured {
  readonly aicrRuns?:
    | {
        readonly jobToNext: { readonly p99Ms: number };
        readonly requestsPerResolution: Readonly<Record<string, number>>;
      }
    | undefined;
  readonly rollout?:
    | {
        readonly releases: number;
        readonly local: { readonly ratioAtEqualArgoCd: number };
        readonly sqs: { readonly ratioAtEqualArgoCd: number };
      }
    | undefined;
  readonly bundles?:
    readonly { readonly function: string; readonly coldImportMs: { readonly median: number } }[] | undefined;
}

/** One value a goal holds, and where it was measured when the goal holds more than one. */
export interface Reading {
  readonly where?: string;
  readonly value: number;
}

interface Goal {
  /** The figure, as the bench prints it. */
  readonly figure: string;
  /** The most the figure may be: at it the goal is met. */
  readonly atMost: number;
  readonly unit: string;
  /** Every value the goal holds in a run; none when the phase that measures it gave no figures. */
  readonly read: (m: Measured) => readonly Reading[];
}

export const GOALS = {
  // A resolution costs about 95 requests (ADR 0021 says why they stay): the ceiling catches a
  // regression, it is not a target to reach.
  requestsPerResolution: {
    figure: 'API requests per resolution',
    atMost: 100,
    unit: '',
    read: (m) => (m.aicrRuns ? [{ value: m.aicrRuns.requestsPerResolution['total'] ?? Number.NaN }] : []),
  },
  // Argo CD's part of each step moves from run to run more than the control plane adds, so the
  // rollout is judged on the writer's part alone, Argo CD's held to what it took in the same run.
  rolloutAtEqualArgoCd: {
    figure: "rollout against its floor, Argo CD's part held to the run's own",
    atMost: 1.1,
    unit: 'x',
    read: (m) =>
      m.rollout
        ? [
            { where: `${m.rollout.releases} releases, local path`, value: m.rollout.local.ratioAtEqualArgoCd },
            { where: `${m.rollout.releases} releases, sqs path`, value: m.rollout.sqs.ratioAtEqualArgoCd },
          ]
        : [],
  },
  jobFinishedToNextActP99: {
    figure: 'AICR Job finished -> next act, p99',
    atMost: 500,
    unit: ' ms',
    read: (m) => (m.aicrRuns ? [{ value: m.aicrRuns.jobToNext.p99Ms }] : []),
  },
  // The module-load part of every Lambda cold start, billed as INIT time.
  coldImport: {
    figure: 'cold import, median',
    atMost: 250,
    unit: ' ms',
    read: (m) => (m.bundles ?? []).map((b) => ({ where: b.function, value: b.coldImportMs.median })),
  },
} as const satisfies Record<string, Goal>;

export type GoalName = keyof typeof GOALS;

export const GOAL_NAMES = Object.keys(GOALS) as readonly GoalName[];

export interface Verdict {
  readonly goal: GoalName;
  readonly met: boolean;
  /** The figure, its value and its goal, for the report. */
  readonly line: string;
}

const limit = (g: Goal): string => `at most ${g.atMost}${g.unit}`;

/**
 * Each named goal against the figures; a goal with nothing to read is missed, since a run that did
 * not measure it cannot say it was met. A value that is not a number (no samples) is missed too.
 */
export function judge(m: Measured, names: readonly GoalName[] = GOAL_NAMES): Verdict[] {
  return names.flatMap((goal) => {
    const g: Goal = GOALS[goal];
    const readings = g.read(m);
    if (readings.length === 0) return [{ goal, met: false, line: `${g.figure}: not measured (${limit(g)})` }];
    return readings.map((r) => ({
      goal,
      met: Number.isFinite(r.value) && r.value <= g.atMost,
      line: `${g.figure}${r.where === undefined ? '' : ` (${r.where})`}: ${r.value}${g.unit} (${limit(g)})`,
    }));
  });
}

/** The lines of the goals missed: any one fails the run. */
export const missed = (verdicts: readonly Verdict[]): string[] => verdicts.filter((v) => !v.met).map((v) => v.line);

/** The goal table as the results file records it. */
export function goalTable(): Record<
  GoalName,
  { readonly figure: string; readonly atMost: number; readonly unit: string }
> {
  const rows = GOAL_NAMES.map((name) => {
    const { figure, atMost, unit } = GOALS[name];
    return [name, { figure, atMost, unit: unit.trim() }] as const;
  });
  return Object.fromEntries(rows) as ReturnType<typeof goalTable>;
}

/** Prints every verdict, a missed goal on stderr; sets the exit code when any goal was missed. */
export function report(verdicts: readonly Verdict[]): void {
  for (const v of verdicts) (v.met ? console.log : console.error)(`goal ${v.met ? 'met' : 'missed'}: ${v.line}`);
  if (missed(verdicts).length > 0) process.exitCode = 1;
}
