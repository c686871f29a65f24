/** The server's revisions and errors as the port's, and the client option that would hide refused appends. */
import {
  ANY,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  NO_STREAM,
  NotLeaderError,
  StreamDeletedError,
  UnavailableError,
  type AppendExpectedRevision,
  type CurrentRevision,
} from '@eventstore/db-client';
import { ExpectedRevision } from './event-store.js';
import { ConflictError, PayloadTooLargeError, storageUnavailable } from '../errors.js';

/**
 * The server's errors as the service's: could not be reached (no connection, no leader, no answer
 * in time) a 503; a stream deleted on the server (by an operator) a 409; an append over the
 * server's size limit a 413; anything else the error itself.
 */
export function unavailableOr(error: unknown): unknown {
  if (error instanceof UnavailableError || error instanceof DeadlineExceededError || error instanceof NotLeaderError)
    return storageUnavailable('event store', error);
  if (error instanceof StreamDeletedError) return new ConflictError(['this record was deleted from the event store and takes no more changes']);
  if (error instanceof MaxAppendSizeExceededError)
    return new PayloadTooLargeError([`the change is larger than the event store accepts in one write (${error.maxAppendSize} bytes)`]);
  return error;
}

export function toExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  // Checked here: the client would send -1 or 1.5 on the connection all appends share, and the
  // encoding's failure would end every append in flight on it.
  if (!Number.isSafeInteger(expected) || expected < 0)
    throw new RangeError(`expected revision must be 'any', 'no_stream' or a revision (an integer from 0), got ${expected}`);
  return BigInt(expected);
}

/**
 * Whether a connection string sets throwOnAppendFailure to false, as the client reads its options:
 * names in any case, with or without `_` and `-` (`throw_on_append_failure=false` too).
 */
export function refusesAppendFailures(connectionString: string): boolean {
  const query = connectionString.split('?')[1] ?? '';
  return query.split('&').some((pair) => {
    const [name = '', value = ''] = pair.split('=');
    return name.trim().toLowerCase().replace(/[_-]/g, '') === 'throwonappendfailure' && value.trim().toLowerCase() === 'false';
  });
}

export function toActual(current: CurrentRevision): number | 'no_stream' {
  return current === NO_STREAM || current < 0n ? 'no_stream' : Number(current);
}
