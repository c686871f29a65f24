/**
 * Runs one GET of the API against point-in-time read models: the request goes through the
 * application's own HTTP stack (loopback), carrying a single-use ticket; a Fastify hook
 * redeems the ticket and continues the request's processing inside
 * `PointInTimeReadStore.runWith`, the way request-scoped context is carried in Fastify (the rest
 * of the hook chain, the guards, the handler and the presenters are called from within it).
 *
 * Loopback rather than `fastify.inject`: light-my-request needs an ESM-only dependency that
 * jest on Node 20 cannot load, and the real stack is what should answer anyway.
 */
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { POINT_IN_TIME } from '../platform/observability/request-telemetry.js';
import { sendError } from '../platform/http/exception.filter.js';
import { answerAs } from '../platform/http/links.js';
import { READ_STORE, type ReadStore } from '../platform/read-store/read-store.js';
import { PointInTimeReadStore } from './point-in-time-read-store.js';

export const TICKET_HEADER = 'x-point-in-time-ticket';
const TICKET_TTL_MS = 30_000;
const REQUEST_TIMEOUT_MS = 30_000;

export interface PointInTimeAnswer {
  status: number;
  text: string;
}

@Injectable()
export class PointInTimeRequests implements OnModuleInit {
  private readonly tickets = new Map<string, { store: ReadStore; origin: string; expires: number }>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  get available(): boolean {
    return this.readStore instanceof PointInTimeReadStore;
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      const ticket = request.headers[TICKET_HEADER];
      if (ticket === undefined) return done();
      const entry = typeof ticket === 'string' ? this.tickets.get(ticket) : undefined;
      if (typeof ticket === 'string') this.tickets.delete(ticket);
      if (!entry || entry.expires < Date.now() || request.method !== 'GET' || !(this.readStore instanceof PointInTimeReadStore)) {
        sendError(reply, { status: 400, errors: ['invalid point-in-time ticket'] });
        return;
      }
      POINT_IN_TIME.add(request);
      // Its links point where the outer request's do, not at the loopback address it came in on.
      answerAs(request, entry.origin);
      this.readStore.runWith(entry.store, () => done());
    });
  }

  /**
   * GETs `path` (with its query) as the given credentials would have seen it with `store` as the
   * read models, its links built from `origin` (the outer request's).
   */
  async get(store: ReadStore, path: string, headers: Record<string, string>, origin: string): Promise<PointInTimeAnswer> {
    const ticket = randomBytes(32).toString('base64url');
    this.tickets.set(ticket, { store, origin, expires: Date.now() + TICKET_TTL_MS });
    // The request runs redirected until its answer has been read; then the context may go.
    const release = this.readStore instanceof PointInTimeReadStore ? this.readStore.hold() : () => undefined;
    try {
      const response = await fetch(`${this.selfOrigin()}${path}`, {
        headers: { ...headers, [TICKET_HEADER]: ticket },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      return { status: response.status, text: await response.text() };
    } finally {
      release();
      this.tickets.delete(ticket);
      const now = Date.now();
      for (const [t, e] of this.tickets) if (e.expires < now) this.tickets.delete(t);
    }
  }

  private selfOrigin(): string {
    const address = this.adapterHost.httpAdapter.getHttpServer().address() as AddressInfo | string | null;
    if (!address || typeof address === 'string') throw new Error('the HTTP server is not listening on a TCP port');
    const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
    return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  }
}
