/** How the driver's errors read to the store: unreachable (a 503), a duplicate key, a refused pipeline update. */
import { MongoNetworkError, MongoNotConnectedError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { storageUnavailable } from '../errors.js';

export const DUPLICATE_KEY = 11000;

/** The server refused an update given as a pipeline (FerretDB: TypeMismatch on `update.updates.u`). */
export function refusesPipelineUpdates(error: unknown): boolean {
  return error instanceof MongoServerError && !isDuplicateKey(error) && (error.code === 14 || /pipeline|'update\.updates\.u'/i.test(error.message));
}

/** The server could not be reached (a network error or timeout, no server to select, a closed client): a 503 for the caller, else the error itself. */
export function unavailableOr(error: unknown): unknown {
  return error instanceof MongoNetworkError || error instanceof MongoServerSelectionError || error instanceof MongoNotConnectedError
    ? storageUnavailable('read store', error)
    : error;
}

/** `operation`, with the errors of a server that cannot be reached as unavailableOr says. */
export async function reaching<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw unavailableOr(error);
  }
}

export function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}
