import { DomainEvent } from '../event-store/event-store.js';
import { Given, ProjectedLog } from '../../../test/support/projection-spec.js';
import { DueDoc, dueBy, dueQueueProjection } from './due-queue.js';

type Scheduled = DomainEvent<'Scheduled', { jobId: number; at: string }>;
type Kept = DomainEvent<'Kept', { jobId: number }>;
type Done = DomainEvent<'Done', { jobId: number }>;

const queue = dueQueueProjection<Scheduled | Kept | Done>()({
  name: 'jobs_due',
  handles: ['Scheduled', 'Kept', 'Done'],
  subject: (event) => event.data.jobId,
  dueAfter: (event) => (event.type === 'Scheduled' ? event.data.at : event.type === 'Kept' ? undefined : null),
});

describe('due queues', () => {
  let log: ProjectedLog;
  beforeEach(() => {
    log = new ProjectedLog([queue]);
  });
  afterEach(async () => {
    await log.close();
  });

  it('keep one document per subject, due at the time its last scheduling event gave, and drop it when nothing is owed', async () => {
    const jobs = log.collection<DueDoc>(queue.collection);
    await log.apply(['job-1', 'Scheduled', { jobId: 1, at: '2026-05-01T10:00:00.000Z' }], ['job-2', 'Scheduled', { jobId: 2, at: '2026-05-01T09:00:00.000Z' }]);
    await log.apply(['job-1', 'Scheduled', { jobId: 1, at: '2026-05-01T08:00:00.000Z' }], ['job-2', 'Kept', { jobId: 2 }]);
    expect(await jobs.list({ limit: 10 })).toMatchObject([
      { id: 1, due_at: '2026-05-01T08:00:00.000Z', created_at: '2026-05-01T10:00:00.000Z', stream: 'job-1' },
      { id: 2, due_at: '2026-05-01T09:00:00.000Z', stream: 'job-2' },
    ]);
    await log.apply(['job-1', 'Done', { jobId: 1 }], ['job-3', 'Kept', { jobId: 3 }]);
    expect((await jobs.list({ limit: 10 })).map((d) => d.id)).toEqual([2]);
  });

  it('read what is due at a time, earliest first: due at that very millisecond is due, one later is not', async () => {
    const jobs = log.collection<DueDoc>(queue.collection);
    const at = (jobId: number, time: string): Given => [`job-${jobId}`, 'Scheduled', { jobId, at: time }];
    await log.apply(at(1, '2026-05-01T10:00:00.001Z'), at(2, '2026-05-01T10:00:00.000Z'), at(3, '2026-05-01T09:59:59.999Z'), at(4, '2026-04-30T00:00:00.000Z'));
    const now = new Date('2026-05-01T10:00:00.000Z');
    expect((await dueBy(jobs, now, 10)).map((d) => d.id)).toEqual([4, 3, 2]);
    expect((await dueBy(jobs, now, 2)).map((d) => d.id)).toEqual([4, 3]);
  });

  it('are checked as projections are: a type of the union left out does not compile', () => {
    // @ts-expect-error 'Done' is not handled
    const partial = dueQueueProjection<Scheduled | Kept | Done>()({
      name: 'jobs_due',
      handles: ['Scheduled', 'Kept'],
      subject: (event) => event.data.jobId,
      dueAfter: () => null,
    });
    expect(partial.handles).toEqual(['Scheduled', 'Kept']);
  });
});
