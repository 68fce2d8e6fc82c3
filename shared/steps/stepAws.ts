// What a step's function needs in AWS beyond what every step's gets (its queue, the delay queue,
// timers, the cluster's address), apart from the step table so each step's folder can hold its
// own (aws.ts) without importing the table. serverless.yml's per-step parts are generated from it.

export interface StepAws {
  /** The function's description; Lambda allows 256 characters. */
  readonly description: string;
  /** Further settings, as `NAME: value` in the function's environment (CloudFormation short forms allowed). */
  readonly environment?: Readonly<Record<string, string>>;
  /** Why the step sends to its own queue and the delay queue, for the role's comment. */
  readonly sends?: string;
  /** Why the step sets one-time schedules, for the role's comment. */
  readonly timers?: string;
  /** Further statements of its role, as YAML list items from column 0. */
  readonly statements?: readonly string[];
}
