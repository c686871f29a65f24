/**
 * Rows of the events table and the batch texts SQLite builds for long reads: one JSON array per
 * batch, parsed once rather than row by row.
 */
import { EventMetadata, ProjectedEvent, RecordedEvent } from './event-store.js';

export interface Row {
  position: number;
  id: string;
  stream: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  created_at: string;
}

/** One event of a batch as SQLite writes it (readAfter): the stored JSON texts are spliced in, not re-encoded. */
type BatchRow = [
  position: number,
  id: string,
  stream: string,
  revision: number,
  type: string,
  data: unknown,
  metadata: EventMetadata,
  createdAt: number | string,
];
/** The same without the event's provenance (id, revision, metadata), for projections (readBatches with `provenance: false`). */
type ProjectedRow = [position: number, stream: string, type: string, data: unknown, createdAt: number | string];

/**
 * A batch as one JSON array. group_concat's order is not promised, so `parseBatch` checks it.
 * Times come as epoch ms (a Date from a number is far cheaper than from text), or as text past year 9999.
 */
const CREATED_MS = `CAST(ROUND(unixepoch(created_at, 'subsec') * 1000) AS INTEGER)`;
const CREATED = `COALESCE(${CREATED_MS}, json_quote(created_at))`;
const BATCH_JSON = `'[' || group_concat('[' || position || ',' || json_quote(id) || ',' || json_quote(stream) || ',' || revision || ',' || json_quote(type) || ',' || data || ',' || metadata || ',' || ${CREATED} || ']', ',') || ']'`;
const PROJECTED_BATCH_JSON = `'[' || group_concat('[' || position || ',' || json_quote(stream) || ',' || json_quote(type) || ',' || data || ',' || ${CREATED} || ']', ',') || ']'`;

/** One batch after a position, up to another: as JSON text, and its last position (where the next batch starts). */
const AFTER = `FROM (SELECT * FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?)`;
const TYPES_AFTER = `FROM (SELECT * FROM events WHERE position > ? AND position <= ? AND type IN (SELECT value FROM json_each(?)) ORDER BY position LIMIT ?)`;
export const READ_AFTER = `SELECT ${BATCH_JSON} AS batch, MAX(position) AS last ${AFTER}`;
export const READ_TYPES_AFTER = `SELECT ${BATCH_JSON} AS batch, MAX(position) AS last ${TYPES_AFTER}`;
export const READ_PROJECTED_AFTER = `SELECT ${PROJECTED_BATCH_JSON} AS batch, MAX(position) AS last ${AFTER}`;
export const READ_PROJECTED_TYPES_AFTER = `SELECT ${PROJECTED_BATCH_JSON} AS batch, MAX(position) AS last ${TYPES_AFTER}`;

/** The events of a batch's text, in position order (each row's first element). */
export function parseBatch<R extends [number, ...unknown[]], E>(batch: string, fromRow: (row: R) => E): E[] {
  const rows = JSON.parse(batch) as R[];
  for (let i = 1; i < rows.length; i += 1) {
    if (rows[i][0] <= rows[i - 1][0]) {
      rows.sort((a, b) => a[0] - b[0]);
      break;
    }
  }
  return rows.map(fromRow);
}

export function fromBatchRow(row: BatchRow): RecordedEvent {
  return {
    id: row[1],
    type: row[4],
    data: row[5],
    metadata: row[6],
    streamName: row[2],
    revision: row[3],
    position: BigInt(row[0]),
    createdAt: new Date(row[7]),
  };
}

export function fromProjectedRow(row: ProjectedRow): ProjectedEvent {
  return {
    type: row[2],
    data: row[3],
    streamName: row[1],
    position: BigInt(row[0]),
    createdAt: new Date(row[4]),
  };
}

export function toRecorded(row: Row): RecordedEvent {
  return {
    id: row.id,
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    streamName: row.stream,
    revision: row.revision,
    position: BigInt(row.position),
    createdAt: new Date(row.created_at),
  };
}
