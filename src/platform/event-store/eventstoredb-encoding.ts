/** Positions, stream ownership and event payloads between the port and the EventStoreDB client. */
import { type JSONType, type Position as EsdbPosition, type RecordedEvent as EsdbRecordedEvent } from '@eventstore/db-client';
import { EventMetadata } from './event-store.js';

const U64_MASK = (1n << 64n) - 1n;
/** What servers before 22.6 send as the position of an event read from a stream. */
const NO_POSITION = U64_MASK;

/** Metadata key of an event's time when the store was given a clock (stripped from the metadata read back). */
export const RECORDED_AT = '$recordedAt';

/** Which events of the server's log are a store's: its namespace's, minus nested foreign streams and system ones. */
export interface StreamOwnership {
  owns(streamId: string, type: string): boolean;
  /** The same rule as a server-side filter for subscriptions (stream names; event types are checked by `owns`). */
  filter: { regex: string } | { prefixes: string[] };
}

/** .NET and JavaScript regular expressions escape the same characters this way. */
function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}-]/g, '\\$&');
}

export function streamOwnership(namespace: string, foreignStreams: readonly string[] = []): StreamOwnership {
  const foreign = foreignStreams.map((prefix) => namespace + prefix);
  const owns = (streamId: string, type: string): boolean =>
    streamId.startsWith(namespace) && !streamId.startsWith('$') && !type.startsWith('$') && !foreign.some((prefix) => streamId.startsWith(prefix));
  // The server filters with .NET regular expressions, which have the same lookahead syntax.
  const excluded = [...(namespace === '' ? ['\\$'] : []), ...foreignStreams.map(escapeRegex)];
  const filter = excluded.length === 0 ? { prefixes: [namespace] } : { regex: `^${escapeRegex(namespace)}(?!${excluded.join('|')})` };
  return { owns, filter };
}

export function encodePosition(position: EsdbPosition): bigint {
  return (position.commit << 64n) | position.prepare;
}

export function decodePosition(position: bigint): EsdbPosition {
  return { commit: position >> 64n, prepare: position & U64_MASK };
}

/**
 * `value`, refused unless it is JSON: the client turns event data into JSON inside a promise it
 * does not return, where a failure (a bigint, a cycle, undefined) is an unhandled rejection that
 * ends the process, and the append never settles.
 */
export function asJson(value: unknown, streamName: string, part: string): JSONType {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new TypeError(`stream ${streamName}: event ${part} is not JSON (${(error as Error).message})`, { cause: error });
  }
  if (text === undefined) throw new TypeError(`stream ${streamName}: event ${part} is not JSON`);
  return value as JSONType;
}

/** An event id as the server gives it back: a UUID in lower case with hyphens, whatever form it was sent in. */
export function canonicalId(id: string): string {
  return id.replace(/-/g, '').toLowerCase();
}

export function streamReadPosition(event: EsdbRecordedEvent): bigint {
  const position = event.position;
  const missing = !position || position.commit === NO_POSITION || position.prepare === NO_POSITION || (position.commit === 0n && position.prepare === 0n);
  if (missing) {
    throw new Error(`EventStoreDB returned no $all position for ${event.streamId}@${event.revision}: the server must be 22.6 or later`);
  }
  return encodePosition(position);
}

/** An event's time: the one its metadata keeps (a store given a clock wrote it), else the server's. */
export function recordedAt(event: EsdbRecordedEvent): Date {
  const metadata = event.metadata as Record<string, unknown> | undefined;
  const at = metadata !== null && typeof metadata === 'object' ? metadata[RECORDED_AT] : undefined;
  return typeof at === 'string' ? new Date(at) : event.created;
}

export function withoutRecordedAt(metadata: EventMetadata): EventMetadata {
  if (!(RECORDED_AT in metadata)) return metadata;
  const { [RECORDED_AT]: _, ...rest } = metadata as Record<string, unknown>;
  return rest as EventMetadata;
}

export function toMetadata(metadata: unknown): EventMetadata {
  return metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata) && !(metadata instanceof Uint8Array) ? (metadata as EventMetadata) : {};
}

/** Events we write are JSON; a binary event (written by something else) is parsed if it is. */
export function parseBinary(data: Uint8Array): unknown {
  const text = Buffer.from(data).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
