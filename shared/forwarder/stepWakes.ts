// What of a change the forwarder weighs beyond "is it news": which of a wake's steps it concerns
// (a kind's per-step prints), and whether it may skip the coalescing interval (a kind's answers).
import type { StepRow } from '../steps/table.ts';
import type { Watchable, WatchedKind } from './watchedKind.ts';

/** The steps of one wake, and which of them a move of an object's print concerns. */
export class StepWakes {
  private readonly watched: WatchedKind<Watchable>;
  private readonly rows: readonly StepRow[];
  /** Their names, in the table's order. */
  readonly steps: readonly string[];

  constructor(watched: WatchedKind<Watchable>, table: readonly StepRow[]) {
    this.watched = watched;
    this.rows = table.filter((r) => (r.wakesOn as readonly string[]).includes(watched.wake));
    this.steps = this.rows.map((r) => r.name);
  }

  /** The kind's fingerprint, and each step's own print when the kind gives them. */
  print(obj: Watchable): string {
    const print = this.watched.fingerprint(obj);
    const stepPrint = this.watched.stepPrint;
    if (!stepPrint) return print;
    return JSON.stringify([print, ...this.rows.map((r) => stepPrint(obj, r))]);
  }

  /**
   * The steps an event that moved the object's print (or deleted it) wakes: all, or on a change
   * with step prints those whose own print moved.
   */
  wokenBy(type: string, obj: Watchable, before: string | undefined, after: string): readonly string[] {
    if (!this.isNews(type, obj, before, after)) return [];
    if (type === 'DELETED' || before === undefined || !this.watched.stepPrint) return this.steps;
    const [b, a] = [JSON.parse(before) as string[], JSON.parse(after) as string[]];
    return this.steps.filter((_, i) => b[i + 1] !== a[i + 1]);
  }

  private isNews(type: string, obj: Watchable, before: string | undefined, after: string): boolean {
    const w = this.watched;
    if (type === 'DELETED') return w.deletionIsNews?.(obj) ?? true;
    if (before === undefined) return w.arrivalIsNews?.(obj) ?? true;
    return w.stepPrint !== undefined || (w.changeIsNews?.(before, after) ?? true);
  }
}

/** Per object, the generation last answered and the one last sent, for kinds that say (`answering`). */
export class Answers {
  private readonly watched: WatchedKind<Watchable>;
  private readonly answered = new Map<string, number>();
  private readonly sent = new Map<string, number>();

  constructor(watched: WatchedKind<Watchable>) {
    this.watched = watched;
  }

  /** Every event counts, the control plane's own status writes above all: they carry the answers. */
  note(obj: Watchable): void {
    const answer = this.watched.answering?.(obj).answered;
    if (answer !== undefined) this.answered.set(obj.metadata.uid, answer);
  }

  askedBy(obj: Watchable): number | undefined {
    return this.watched.answering?.(obj).asked;
  }

  /** Whether `asked` is a new generation and every one sent before it has been answered. */
  answeredBefore(uid: string, asked: number | undefined): boolean {
    const sent = this.sent.get(uid);
    const answered = this.answered.get(uid);
    if (asked === undefined || sent === undefined || answered === undefined) return false;
    return asked > sent && answered >= sent;
  }

  noteSent(uid: string, asked: number | undefined): void {
    if (asked !== undefined) this.sent.set(uid, asked);
  }
}
