/**
 * Progress of a long replay for a person watching: on a terminal one line redrawn in place
 * (events done, share of the log, rate, time left), elsewhere (CI, a log file) a plain line
 * every few seconds. The share and the time left come from positions, which grow with the log
 * on every adapter (SQLite row ids, EventStoreDB byte offsets).
 */

export interface ProgressOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressPoint {
  position: bigint;
  events: number;
}

const REDRAW_MS = 100;
const PLAIN_EVERY_MS = 5000;

function seconds(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s >= 120 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

export class ProgressReport {
  private readonly started: number;
  private lastWrite = -Infinity;
  private drawn = false;

  constructor(
    private readonly out: ProgressOutput,
    /** Position the replay starts after, and the head it runs to. */
    private readonly span: { from: bigint; to: bigint },
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
  }

  /** The status line for a point of the replay. */
  describe(point: ProgressPoint): string {
    const elapsed = this.now() - this.started;
    const rate = elapsed > 0 ? (point.events * 1000) / elapsed : 0;
    const total = this.span.to - this.span.from;
    const done = point.position - this.span.from;
    const share = total > 0n ? Math.min(1, Number((done * 10_000n) / total) / 10_000) : 1;
    const parts = [`${point.events.toLocaleString('en-US')} events`, `${(share * 100).toFixed(1)}%`, `${Math.round(rate).toLocaleString('en-US')} events/s`];
    if (share > 0 && share < 1) parts.push(`about ${seconds((elapsed / share) * (1 - share))} left`);
    return `replaying: ${parts.join(', ')}`;
  }

  update(point: ProgressPoint): void {
    const now = this.now();
    if (this.out.isTTY) {
      if (now - this.lastWrite < REDRAW_MS) return;
      this.out.write(`\r\x1b[2K${this.describe(point)}`);
      this.drawn = true;
    } else {
      if (now - this.lastWrite < PLAIN_EVERY_MS) return;
      this.out.write(`${this.describe(point)}\n`);
    }
    this.lastWrite = now;
  }

  finish(point: ProgressPoint): void {
    const elapsed = this.now() - this.started;
    const rate = elapsed > 0 ? Math.round((point.events * 1000) / elapsed) : point.events;
    const line = `replayed ${point.events.toLocaleString('en-US')} events up to position ${point.position} in ${(elapsed / 1000).toFixed(1)} s (${rate.toLocaleString('en-US')} events/s)`;
    this.out.write(this.out.isTTY && this.drawn ? `\r\x1b[2K${line}\n` : `${line}\n`);
  }
}
