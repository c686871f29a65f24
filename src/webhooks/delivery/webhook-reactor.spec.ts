import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { MerchantDirectory } from '../../merchants/index.js';
import { Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { RecordedEvent } from '../../platform/event-store/event-store.js';
import { SqliteEventStore } from '../../platform/event-store/sqlite-event-store.js';
import { IdSource } from '../../platform/ids.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { WebhookEndpointQueries } from '../read-models/webhook-queries.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { REACTOR_CHECKPOINT_STREAM, WebhookReactor } from './webhook-reactor.js';

const MERCHANT = 7;

/**
 * The reactor on a real event store, with the scheduling append replaced by a recorder whose
 * answers take different times (so handlings finish out of order) and can fail once.
 */
function reactorOn(store: SqliteEventStore, schedule: (eventId: string) => Promise<void>) {
  const runner = {
    run: async (_stream: string, _decider: unknown, command: { payload: { id: string } }) => {
      await schedule(command.payload.id);
      return { events: [] };
    },
  } as unknown as CommandRunner;
  const projections = { processed: BigInt(Number.MAX_SAFE_INTEGER), waitFor: async () => undefined } as unknown as ProjectionRunner;
  const endpoints = { ofMerchant: async () => [{ id: 1, created_position: '0', events: null }] } as unknown as WebhookEndpointQueries;
  const merchants = { byId: async () => ({ can_see_recipients: false }) } as unknown as MerchantDirectory;
  const dispatcher = { wake: () => undefined } as unknown as WebhookDispatcher;
  const clock: Clock = { now: () => new Date('2026-11-23T12:00:00.000Z') };
  let id = 0;
  const ids = { next: () => (id += 1) } as unknown as IdSource;
  return new WebhookReactor(store, runner, projections, endpoints, merchants, dispatcher, clock, ids);
}

/** `n` opt-outs of the merchant (webhook sources), each its own stream; their events in log order. */
async function optOuts(store: SqliteEventStore, n: number): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for (let i = 0; i < n; i += 1) {
    const data = { emailAddress: `friend-${i}@example.net`, jobId: i, optedOutAt: '2026-11-23T12:00:00.000Z' };
    out.push(...(await store.append(`email-opt-out-${i}`, [{ type: 'EmailOptedOut', data, metadata: { merchantId: MERCHANT } }], 'no_stream')).events);
  }
  return out;
}

async function checkpoint(store: SqliteEventStore): Promise<bigint | undefined> {
  const saved = await store.readStream(REACTOR_CHECKPOINT_STREAM);
  return saved.length === 0 ? undefined : BigInt((saved[saved.length - 1].data as { position: string }).position);
}

const until = async (condition: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('WebhookReactor', () => {
  let store: SqliteEventStore;
  beforeEach(() => {
    store = new SqliteEventStore({ path: ':memory:', pollMs: 10 });
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    await store.close();
    jest.restoreAllMocks();
  });

  it('schedules several source events at once and, while it waits for more, checkpoints after the last of them', async () => {
    const events = await optOuts(store, 60);
    let inFlight = 0;
    let most = 0;
    const done = new Set<string>();
    const reactor = reactorOn(store, async (eventId) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      // Later events answer sooner than earlier ones.
      await new Promise((r) => setTimeout(r, 1 + ((events.length - events.findIndex((e) => e.id === eventId)) % 7)));
      inFlight -= 1;
      done.add(eventId);
    });
    await reactor.start();
    await until(() => done.size === events.length);
    // The periodic checkpoint (every 2 s) of a reactor that has nothing more to read covers every event handled.
    const last = events[events.length - 1].position;
    let saved: bigint | undefined;
    const deadline = Date.now() + 5000;
    while ((saved = await checkpoint(store)) !== last && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(saved).toBe(last);
    await reactor.stop();
    expect(most).toBeGreaterThan(1);
  });

  it('resumes after the last of its checkpoints, whatever came before it', async () => {
    const events = await optOuts(store, 12);
    const mark = (position: bigint) => ({
      type: 'WebhookReactorCheckpointed',
      data: { position: String(position), checkpointedAt: '2026-11-23T12:00:00.000Z' },
    });
    // Saved positions as a reactor that ran before would have left them: each later than the one before.
    await store.append(REACTOR_CHECKPOINT_STREAM, [mark(events[1].position), mark(events[4].position), mark(events[8].position)], 'any');
    const scheduled: string[] = [];
    const reactor = reactorOn(store, async (eventId) => {
      scheduled.push(eventId);
    });
    await reactor.start();
    await until(() => scheduled.length >= 3);
    await new Promise((r) => setTimeout(r, 50));
    await reactor.stop();
    expect(scheduled.sort()).toEqual(
      events
        .slice(9)
        .map((e) => e.id)
        .sort(),
    );
  });

  it('never checkpoints past an event whose scheduling failed, though later ones finished, and schedules it on the next pass', async () => {
    const events = await optOuts(store, 20);
    const failing = events[5];
    let failed = false;
    const done = new Set<string>();
    const reactor = reactorOn(store, async (eventId) => {
      if (eventId === failing.id && !failed) {
        // Fails after the events behind it have been scheduled.
        await until(() => events.slice(6).every((e) => done.has(e.id)));
        failed = true;
        throw new Error('the store refused the append');
      }
      done.add(eventId);
    });
    await reactor.start();
    await until(() => failed);
    // Stopped while the pass that failed waits to start again: the checkpoint is what it had handled in order.
    await new Promise((r) => setTimeout(r, 50));
    await reactor.stop();
    expect(await checkpoint(store)).toBe(events[4].position);
    expect(done.has(failing.id)).toBe(false);

    const again = reactorOn(store, async (eventId) => {
      done.add(eventId);
    });
    await again.start();
    await until(() => done.has(failing.id));
    await again.stop();
    // Past every opt-out (and past the first pass's own checkpoint event, which follows them in the log).
    expect(await checkpoint(store)).toBeGreaterThan(events[events.length - 1].position);
  });
});
