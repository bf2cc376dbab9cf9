/**
 * Restart-on-crash policy: exponential backoff, and give up after too many crashes in a
 * window (a server that dies at start would otherwise spin forever).
 */

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  maxCrashes: number;
  windowMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  baseMs: 1_000,
  maxMs: 30_000,
  maxCrashes: 5,
  windowMs: 3 * 60_000,
};

export class Backoff {
  private crashes: number[] = [];

  constructor(
    private readonly options: BackoffOptions = DEFAULT_BACKOFF,
    private readonly now: () => number = Date.now,
  ) {}

  /** Record a crash; the delay before the next start, or undefined to give up. */
  nextDelay(): number | undefined {
    const t = this.now();
    this.crashes = this.crashes.filter((c) => t - c < this.options.windowMs);
    this.crashes.push(t);
    const n = this.crashes.length;
    if (n > this.options.maxCrashes) return undefined;
    return Math.min(this.options.maxMs, this.options.baseMs * 2 ** (n - 1));
  }

  /** A deliberate restart (command, settings) starts over. */
  reset(): void {
    this.crashes = [];
  }

  get recentCrashes(): number {
    return this.crashes.length;
  }
}
