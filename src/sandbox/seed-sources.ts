/**
 * Clock, ids and codes of a sandbox generation: fixed and repeatable while the baseline is
 * seeded (so every reset, on every machine, has the same sample ids, codes and times), then
 * live once it is done.
 */
import { Clock, systemClock } from '../platform/clock.js';
import { CodeSource, IdSource, RandomCodes, SeededCodes, SequentialIds, TimeOrderedIds } from '../platform/ids.js';
import { CODE_ALPHABET, CODE_LENGTH } from '../referral-links/index.js';

export const BASELINE_START = new Date('2026-01-05T09:00:00.000Z');
export const BASELINE_FIRST_ID = 1000;
export const BASELINE_CODE_SEED = 20260105;

export class SeedSources {
  private seeding = true;
  private at = BASELINE_START.getTime();
  private readonly seedIds = new SequentialIds(BASELINE_FIRST_ID);
  private readonly liveIds: TimeOrderedIds;
  private readonly seedCodes = new SeededCodes(BASELINE_CODE_SEED, CODE_LENGTH, CODE_ALPHABET);
  private readonly liveCodes = new RandomCodes(CODE_LENGTH, CODE_ALPHABET);

  constructor(private readonly live: Clock = systemClock) {
    this.liveIds = new TimeOrderedIds(() => this.live.now().getTime());
  }

  readonly clock: Clock = { now: () => (this.seeding ? new Date(this.at) : this.live.now()) };
  readonly ids: IdSource = { next: () => (this.seeding ? this.seedIds.next() : this.liveIds.next()) };
  readonly codes: CodeSource = { next: () => (this.seeding ? this.seedCodes.next() : this.liveCodes.next()) };

  /** Moves the seeding clock forward (sample data spread over days). */
  advance(ms: number): void {
    this.at += ms;
  }

  goLive(): void {
    this.seeding = false;
  }
}
