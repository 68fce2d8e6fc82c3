// What the forwarders of one Lambda window share, so they leave together once the cluster is quiet.

/** When the forwarders of one window last sent a change; they leave together once it is quiet. */
export class WindowActivity {
  public lastNewsAt: number;

  constructor(lastNewsAt: number) {
    this.lastNewsAt = lastNewsAt;
  }
  note(at: number): void {
    this.lastNewsAt = Math.max(this.lastNewsAt, at);
  }
}
