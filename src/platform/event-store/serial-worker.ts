/**
 * A worker thread that handles one request at a time (the embedded store's writer and indexer):
 * the caller sends a request and waits for its answer before sending the next, and only a
 * request in flight keeps the process alive.
 *
 * Protocol of the worker's source: it answers each `{ request }` with `{ result }` or `{ failed:
 * { message, code } }`, and `{ close: true }` with `{ closed: true }` after closing its database.
 * `answerRequests` is that side of it, shipped to each thread as source beside its main function.
 */
import type { MessagePort } from 'node:worker_threads';
import { Worker } from 'node:worker_threads';

/** The thread's side of the protocol: each request answered with what `handle` makes of it. It uses only its arguments. */
export function answerRequests<Request>(parentPort: MessagePort, db: { close(): void }, handle: (request: Request) => unknown): void {
  parentPort.on('message', (message: { request?: Request; close?: boolean }) => {
    if (message.close) {
      db.close();
      parentPort.postMessage({ closed: true });
      return;
    }
    try {
      parentPort.postMessage({ result: handle(message.request!) });
    } catch (error) {
      const e = error as { message?: string; code?: string };
      parentPort.postMessage({ failed: { message: String(e.message ?? error), code: e.code } });
    }
  });
}

export class SerialWorker<Request, Result> {
  private readonly worker: Worker;
  private waiting: { resolve: (result: Result) => void; reject: (error: Error) => void } | undefined;
  private closing: (() => void) | undefined;
  private failure: Error | undefined;

  /**
   * @param source the worker's code, evaluated (it may use only `require` and its workerData)
   * @param name what the thread is, for the error when it dies
   * @param failure turns a failure (reported, or the thread's death) into the caller's error
   */
  constructor(source: string, workerData: unknown, name: string, failure: (message: string, code?: string) => Error) {
    this.worker = new Worker(source, { eval: true, workerData });
    this.worker.unref();
    this.worker.on('message', (message: { result?: Result; failed?: { message: string; code?: string }; closed?: boolean }) => {
      if (message.closed) {
        this.closing?.();
        return;
      }
      const waiting = this.waiting;
      this.waiting = undefined;
      this.worker.unref();
      if (message.failed) waiting?.reject(failure(message.failed.message, message.failed.code));
      else waiting?.resolve(message.result as Result);
    });
    const fail = (error: Error) => {
      this.failure = error;
      this.waiting?.reject(error);
      this.waiting = undefined;
      this.closing?.();
    };
    this.worker.on('error', (error) => fail(failure(error.message)));
    this.worker.on('exit', (code) => {
      if (!this.closing || this.waiting) fail(failure(`${name} exited (code ${code})`));
    });
  }

  /** True once the thread is gone (it died, or failed to start): every request fails. */
  get broken(): boolean {
    return this.failure !== undefined;
  }

  request(request: Request): Promise<Result> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.waiting) return Promise.reject(new Error('one request at a time'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.worker.ref();
      this.worker.postMessage({ request });
    });
  }

  async close(): Promise<void> {
    if (this.failure) {
      await this.worker.terminate();
      return;
    }
    await new Promise<void>((resolve) => {
      this.closing = resolve;
      this.worker.ref();
      this.worker.postMessage({ close: true });
    });
    await this.worker.terminate();
  }
}
