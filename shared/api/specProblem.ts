// One reason a runtime's spec is not acceptable, as the field path and what to fix there. Here
// rather than beside the resolve step, because checks below the steps (the AICR overrides) find
// such problems too and must not import a step to say so.
export interface SpecProblem {
  readonly field: string;
  readonly message: string;
}

/** Problems as one message: "<field path>: <what to fix>; …". */
export function describeProblems(problems: readonly SpecProblem[]): string {
  return problems.map((p) => `${p.field}: ${p.message}`).join('; ');
}
