/** Merchant use cases: register (admin), change settings (admin), revoke tokens (v2), rotate the secret or publishable key (admin). */
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { ID_SOURCE, type IdSource, randomString } from '../../platform/ids.js';
import { merchantDecider, MerchantSettings, merchantStream } from '../domain/merchant.js';

function newSecretKey(): string {
  return `sk_${randomString(40)}`;
}

/** Public by design (page source): long enough that keys are not guessed from one another. */
function newPublishableKey(): string {
  return `pk_${randomString(32)}`;
}

export interface NewMerchantCredentials {
  id: number;
  name: string;
  accessKey: string;
  secretKey: string;
  publishableKey: string;
}

export class RegisterMerchantCommand extends Command<NewMerchantCredentials> {
  constructor(
    readonly name: string,
    /** Given keys (the sandbox's documented sample merchant); new random keys otherwise. */
    readonly keys?: { accessKey: string; secretKey: string; publishableKey: string },
  ) {
    super();
  }
}

@CommandHandler(RegisterMerchantCommand)
export class RegisterMerchantHandler implements ICommandHandler<RegisterMerchantCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
  ) {}

  async execute({ name, keys }: RegisterMerchantCommand): Promise<NewMerchantCredentials> {
    const merchantId = this.ids.next();
    const accessKey = keys?.accessKey ?? `ak_${randomString(24)}`;
    const secretKey = keys?.secretKey ?? newSecretKey();
    const publishableKey = keys?.publishableKey ?? newPublishableKey();
    await this.runner.run(
      merchantStream(merchantId),
      merchantDecider,
      { type: 'RegisterMerchant', merchantId, name, accessKey, secretKey, publishableKey, now: this.clock.now() },
      { metadata: { merchantId, actor: 'admin' } },
    );
    return { id: merchantId, name, accessKey, secretKey, publishableKey };
  }
}

export class ChangeMerchantCommand extends Command<void> {
  constructor(
    readonly merchantId: number,
    readonly name: string | undefined,
    readonly settings: Partial<MerchantSettings>,
    /** The whole new list of allowed origins, already checked (allowed-origins.ts); undefined: unchanged. */
    readonly allowedOrigins?: string[],
  ) {
    super();
  }
}

@CommandHandler(ChangeMerchantCommand)
export class ChangeMerchantHandler implements ICommandHandler<ChangeMerchantCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(c: ChangeMerchantCommand): Promise<void> {
    await this.runner.run(
      merchantStream(c.merchantId),
      merchantDecider,
      { type: 'ChangeMerchant', merchantId: c.merchantId, name: c.name, settings: c.settings, allowedOrigins: c.allowedOrigins, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId, actor: 'admin' } },
    );
  }
}

export class RevokeMerchantTokensCommand extends Command<void> {
  /** `generation`: that of the token the request came with. */
  constructor(
    readonly merchantId: number,
    readonly generation: number,
  ) {
    super();
  }
}

@CommandHandler(RevokeMerchantTokensCommand)
export class RevokeMerchantTokensHandler implements ICommandHandler<RevokeMerchantTokensCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ merchantId, generation }: RevokeMerchantTokensCommand): Promise<void> {
    await this.runner.run(
      merchantStream(merchantId),
      merchantDecider,
      { type: 'RevokeMerchantTokens', merchantId, generation, now: this.clock.now() },
      { metadata: { merchantId, actor: 'merchant' } },
    );
  }
}

/** A new secret key for the merchant (answered once); every token issued before is revoked. */
export class RotateMerchantSecretKeyCommand extends Command<string> {
  constructor(readonly merchantId: number) {
    super();
  }
}

@CommandHandler(RotateMerchantSecretKeyCommand)
export class RotateMerchantSecretKeyHandler implements ICommandHandler<RotateMerchantSecretKeyCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ merchantId }: RotateMerchantSecretKeyCommand): Promise<string> {
    const secretKey = newSecretKey();
    await this.runner.run(
      merchantStream(merchantId),
      merchantDecider,
      { type: 'RotateMerchantSecretKey', merchantId, secretKey, now: this.clock.now() },
      { metadata: { merchantId, actor: 'admin' } },
    );
    return secretKey;
  }
}

/** A new publishable key for the merchant; the old one stops opening the browser routes at once. */
export class RotateMerchantPublishableKeyCommand extends Command<string> {
  constructor(readonly merchantId: number) {
    super();
  }
}

@CommandHandler(RotateMerchantPublishableKeyCommand)
export class RotateMerchantPublishableKeyHandler implements ICommandHandler<RotateMerchantPublishableKeyCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ merchantId }: RotateMerchantPublishableKeyCommand): Promise<string> {
    const publishableKey = newPublishableKey();
    await this.runner.run(
      merchantStream(merchantId),
      merchantDecider,
      { type: 'RotateMerchantPublishableKey', merchantId, publishableKey, now: this.clock.now() },
      { metadata: { merchantId, actor: 'admin' } },
    );
    return publishableKey;
  }
}

export const merchantCommandHandlers = [
  RegisterMerchantHandler,
  ChangeMerchantHandler,
  RevokeMerchantTokensHandler,
  RotateMerchantSecretKeyHandler,
  RotateMerchantPublishableKeyHandler,
];
