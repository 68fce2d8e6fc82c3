// One entry of the reason guide: where a reason shows, why, and what to do. Its own module, so
// the guide's parts can share it without importing the guide.
export interface ReasonGuide {
  /** The condition and status it shows on, as the table says it (markdown). */
  readonly on: string;
  readonly cause: string;
  /** What to do (markdown), ending with a link to its entry when it has one. */
  readonly fix: string;
}
