/**
 * Runs one async task at a time. A call while a run is in flight does not start a second
 * one concurrently: it is coalesced into at most one follow-up run, and every caller gets
 * a promise that settles when the run covering its request has finished.
 */
export class SerialGuard {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly task: () => Promise<void>) {}

  run(): Promise<void> {
    if (this.running === undefined) {
      this.running = this.start();
      return this.running;
    }
    if (this.queued === undefined) {
      const current = this.running;
      this.queued = current.then(
        () => this.follow(),
        () => this.follow(),
      );
    }
    return this.queued;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  private follow(): Promise<void> {
    this.queued = undefined;
    this.running = this.start();
    return this.running;
  }

  private start(): Promise<void> {
    const p = this.task().finally(() => {
      if (this.running === p) this.running = undefined;
    });
    return p;
  }
}
