/**
 * The projection's types, checked by `tsc --noEmit` (run by `npm test`): every `@ts-expect-error`
 * below must meet an error, so a projection that misspells or leaves out an event stops compiling.
 */
import { DomainEvent } from '../event-store/event-store.js';
import { ReadDoc } from '../read-store/read-store.js';
import { defineProjection, Projection, ProjectedOf } from './projection.js';

type Opened = DomainEvent<'Opened', { id: number; at: string }>;
type Renamed = DomainEvent<'Renamed', { id: number; name: string }>;
type Closed = DomainEvent<'Closed', { id: number }>;
type DoorEvent = Opened | Renamed | Closed;

interface DoorDoc extends ReadDoc {
  name: string;
}

const collection = { name: 'doors', indexes: [] };
const define = defineProjection<DoorDoc, DoorEvent>();

describe('defineProjection', () => {
  it('narrows each event by its type and hands the runner an erased projection', () => {
    const doors: Projection<DoorDoc> = define({
      name: 'doors',
      collection,
      handles: ['Opened', 'Renamed', 'Closed'],
      keys: (event) => [String(event.data.id)],
      evolve(doc, event, key) {
        switch (event.type) {
          case 'Opened':
            return { _id: key, name: '', created_at: event.data.at };
          case 'Renamed':
            return doc && { ...doc, name: event.data.name };
          case 'Closed':
            return null;
        }
      },
    });
    const at = { streamName: 'door-1', position: 1n, createdAt: new Date(0) };
    const opened = doors.evolve(null, { type: 'Opened', data: { id: 1, at: '2026-01-01T00:00:00.000Z' }, ...at }, '1');
    expect(doors.keys({ type: 'Closed', data: { id: 1 }, ...at })).toEqual(['1']);
    const renamed = doors.evolve(opened, { type: 'Renamed', data: { id: 1, name: 'front' }, ...at }, '1');
    expect(renamed).toEqual({ _id: '1', name: 'front', created_at: '2026-01-01T00:00:00.000Z' });
    expect(doors.handles).toEqual(['Opened', 'Renamed', 'Closed']);
  });

  it('rejects a misspelled event name, an event of the union left out, and a list it cannot check', () => {
    const base = { name: 'doors', collection, keys: () => [], evolve: () => null };
    // @ts-expect-error 'Renamd' is not a type of DoorEvent
    define({ ...base, handles: ['Opened', 'Renamd', 'Closed'] });
    // @ts-expect-error 'Closed' is not handled
    define({ ...base, handles: ['Opened', 'Renamed'] });
    // @ts-expect-error `data` is narrowed by `type`: an Opened event has no name
    const misread = (doc: DoorDoc | null, event: ProjectedOf<DoorEvent>) => (event.type === 'Opened' ? { ...doc!, name: event.data.name } : null);
    define({ ...base, handles: ['Opened', 'Renamed', 'Closed'], evolve: misread });
    const someTypes: readonly DoorEvent['type'][] = ['Opened'];
    // @ts-expect-error a list typed only as the union's names may leave some out: it must be literal
    define({ ...base, handles: someTypes });
    expect(define({ ...base, handles: ['Closed', 'Opened', 'Renamed'] }).handles).toHaveLength(3);
  });
});
