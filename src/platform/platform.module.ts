/**
 * The platform every feature stands on: configuration, clock, ids, the two storage ports,
 * the projection runner and the command runner. Global, so features just inject.
 */
import { LinkFactory } from './http/links.factory.js';
import { BeforeApplicationShutdown, DynamicModule, Global, Inject, Injectable, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AuthFailureLimiter } from './auth/auth-failure-limiter.js';
import { AdminGuard, TokenVerifier, V1BasicAuthGuard, V2TokenGuard } from './auth/guards.js';
import { CLOCK, Clock } from './clock.js';
import { CommandRunner } from './command-runner.js';
import { KeyedTurns } from './keyed-turns.js';
import { CONFIG, Config } from './config.js';
import { EVENT_STORE, type EventStore } from './event-store/event-store.js';
import { PERSONAL_DATA, personalDataOf } from './personal-data/personal-data-event-store.js';
import { CODE_SOURCE, type CodeSource, ID_SOURCE, IdSource } from './ids.js';
import type { StorageClaim } from './instance/storage-claim.js';
import { AnyProjection, PROJECTIONS } from './projections/projection.js';
import { ProjectionRunner } from './projections/projection-runner.js';
import { READ_STORE, type ReadStore } from './read-store/read-store.js';

export interface PlatformOptions {
  config: Config;
  clock: Clock;
  ids: IdSource;
  codes: CodeSource;
  eventStore: EventStore;
  readStore: ReadStore;
  projections: AnyProjection[];
  /** The live app's hold on its storage (DATA_DIR lock, lease), let go once the stores are closed. */
  storageClaim?: StorageClaim;
}

const STORAGE_CLAIM = Symbol('StorageClaim');

@Injectable()
class StorageLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    private readonly runner: ProjectionRunner,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(STORAGE_CLAIM) private readonly claim: StorageClaim | null,
  ) {}

  /** Read models are complete before the server accepts its first request. */
  async onApplicationBootstrap(): Promise<void> {
    await this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  /** The global module's hooks run last: the sandbox's stores are closed too when the claim goes. */
  async onApplicationShutdown(): Promise<void> {
    try {
      await this.eventStore.close();
      await this.readStore.close();
    } finally {
      await this.claim?.release();
    }
  }
}

@Global()
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformOptions): DynamicModule {
    const shared = [
      { provide: CONFIG, useValue: options.config },
      { provide: CLOCK, useValue: options.clock },
      { provide: ID_SOURCE, useValue: options.ids },
      { provide: CODE_SOURCE, useValue: options.codes },
      { provide: EVENT_STORE, useValue: options.eventStore },
      // The event store's personal-data layer: keyed hashes of subjects, and erasure (platform/personal-data).
      { provide: PERSONAL_DATA, useValue: personalDataOf(options.eventStore) },
      { provide: READ_STORE, useValue: options.readStore },
      { provide: PROJECTIONS, useValue: options.projections },
      ProjectionRunner,
      CommandRunner,
      KeyedTurns,
      AuthFailureLimiter,
      V1BasicAuthGuard,
      TokenVerifier,
      V2TokenGuard,
      AdminGuard,
      LinkFactory,
    ];
    return {
      module: PlatformModule,
      providers: [...shared, { provide: STORAGE_CLAIM, useValue: options.storageClaim ?? null }, StorageLifecycle],
      exports: shared.map((p) => ('provide' in p ? p.provide : p)),
    };
  }
}
