/**
 * Group commit: what is queued in one turn of the event loop, or while the batch before it is
 * being written, is written as one batch (one transaction, one fsync), one batch at a time. The
 * embedded log's appends and the key store's new keys queue this way.
 */
export class GroupCommit<Item> {
  private queued: Item[] = [];
  private scheduled = false;
  private current: Promise<void> | undefined;

  /** `write` answers the batch's callers itself; it should not throw. */
  constructor(private readonly write: (batch: Item[]) => Promise<void>) {}

  add(item: Item): void {
    this.queued.push(item);
    this.schedule();
  }

  /** The batch being written, if any. */
  get writing(): Promise<void> | undefined {
    return this.current;
  }

  /** Resolves once everything queued so far is written; what waits for its turn is written at once. */
  async drain(): Promise<void> {
    while (this.current || this.queued.length > 0 || this.scheduled) {
      if (this.current) await this.current;
      else if (this.queued.length > 0) await this.run();
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private schedule(): void {
    if (this.scheduled || this.current) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.current) void this.run();
    });
  }

  private run(): Promise<void> {
    const batch = this.queued;
    this.queued = [];
    const current = (batch.length > 0 ? this.write(batch) : Promise.resolve()).finally(() => {
      this.current = undefined;
      if (this.queued.length > 0) this.schedule();
    });
    this.current = current;
    return current;
  }
}
