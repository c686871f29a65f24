/**
 * On SIGTERM (Nest's shutdown hooks, enabled in app.ts) the order that keeps every answered
 * request correct: refuse new requests (503), let the ones in flight finish while the
 * projections still run (a write waits for its read model before answering), and only then
 * let the platform stop the projections (storing their checkpoints) and close the stores.
 *
 * Nest runs `onModuleDestroy` first and for this module before the global PlatformModule's
 * hooks, so the drain happens before the projection runner stops in `beforeApplicationShutdown`.
 */
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { CONFIG, type Config } from '../platform/config.js';
import { RequestTelemetry } from '../platform/observability/request-telemetry.js';

@Injectable()
export class GracefulShutdown implements OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('Shutdown');

  constructor(
    private readonly telemetry: RequestTelemetry,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  /** A sandbox generation closes at every reset: only the live service's stop is news in the log. */
  private get live(): boolean {
    return this.config.mountPath !== '/sandbox';
  }

  async onModuleDestroy(): Promise<void> {
    this.telemetry.stopAccepting();
    const inFlight = this.telemetry.requestsInFlight;
    if (this.live) this.logger.log(`shutting down: new requests get 503, ${inFlight} in flight finish first`, { in_flight: inFlight });
    if (inFlight === 0) return;
    this.logger.log(`waiting for ${inFlight} request(s) in flight`, { in_flight: inFlight });
    const drained = await this.telemetry.drained(this.config.shutdownGraceMs);
    if (!drained) {
      this.logger.warn(`closing ${this.telemetry.requestsInFlight} request(s) still in flight after ${this.config.shutdownGraceMs} ms`);
      // Otherwise a client that never finishes its request would hold the shutdown until Node's request timeout.
      (this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined)?.closeAllConnections?.();
    }
  }

  onApplicationShutdown(signal?: string): void {
    if (this.live) this.logger.log(`stopped${signal ? ` on ${signal}` : ''}: read-model checkpoints stored, stores closed`, { signal: signal ?? null });
  }
}
