/**
 * Share instructions with the mailer and the read model replaced: a share is taken on once at a
 * time, also while the emails of a share whose merchant asks nothing are being sent (a pass in
 * that window started on the share again).
 */
import { eventually } from '../../../test/support/eventually.js';
import { Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { Config } from '../../platform/config.js';
import { docKey } from '../../platform/ids.js';
import { DueDoc } from '../../platform/projections/due-queue.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { MemoryReadStore } from '../../platform/read-store/memory-read-store.js';
import { MerchantDirectory } from '../../merchants/index.js';
import { ClientApiCaller, IntegrationSettingsQueries } from '../../integrations/index.js';
import { shareStream } from '../domain/share.js';
import { ShareQueries } from '../read-models/share-queries.js';
import { shareEmailsDueProjection } from '../read-models/share-queues.js';
import { ShareMailer } from './share-commands.js';
import { ShareInstructions } from './share-instructions.js';

const SHARE = 52;
const NOW = new Date('2026-11-25T12:00:00.000Z');

describe('ShareInstructions', () => {
  it('does not start on a share again while its emails are being sent (the merchant asks nothing)', async () => {
    const readStore = new MemoryReadStore();
    const emailsDue = readStore.collection<DueDoc>(shareEmailsDueProjection.collection);
    await emailsDue.put({ _id: docKey(SHARE), due_at: NOW.toISOString(), created_at: NOW.toISOString(), id: SHARE, stream: shareStream(SHARE) }, 1n);
    let release!: () => void;
    const sending = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const mailer = {
      state: async () => ({ share: { merchantId: 7 }, emailsDecided: false }),
      send: async () => {
        started += 1;
        await sending;
      },
    } as unknown as ShareMailer;
    const integrations = { clientApi: async () => ({ shareInstructionsUrl: null }) } as unknown as IntegrationSettingsQueries;
    const config = { webhookRetryWindowMs: 86_400_000, webhookRetryIntervalMs: 3_600_000, schedulerTickMs: 1000 } as Config;
    const clock: Clock = { now: () => NOW };
    const instructions = new ShareInstructions(
      {} as CommandRunner,
      { emailsDue } as unknown as ShareQueries,
      mailer,
      {} as ClientApiCaller,
      integrations,
      {} as MerchantDirectory,
      {} as ProjectionRunner,
      config,
      clock,
    );
    const pass = () => (instructions as unknown as { askDue(): Promise<void> }).askDue();

    await pass();
    await eventually(async () => expect(started).toBe(1));
    // Its emails are being sent: the share is still due in the read model.
    await pass();
    await new Promise((r) => setTimeout(r, 50));
    expect(started).toBe(1);
    release();
    await instructions.onApplicationShutdown();
  });
});
