/** Merchant use cases: register (admin), change settings (admin), revoke tokens (v2), rotate the secret or publishable key (admin). */
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { UseCase, type UseCaseInput } from '../../platform/use-case.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { ID_SOURCE, type IdSource, randomString } from '../../platform/ids.js';
import { type MerchantCommand, merchantDecider, merchantStream } from '../domain/merchant.js';

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

type RegisterMerchant = Extract<MerchantCommand, { type: 'RegisterMerchant' }>;
type MerchantKeys = 'accessKey' | 'secretKey' | 'publishableKey';

/** Keys given: the sandbox's documented sample merchant; new random keys otherwise. */
export class RegisterMerchantCommand extends UseCase<
  UseCaseInput<RegisterMerchant, 'merchantId' | MerchantKeys> & Partial<Pick<RegisterMerchant, MerchantKeys>>,
  NewMerchantCredentials
> {}

@CommandHandler(RegisterMerchantCommand)
export class RegisterMerchantHandler implements ICommandHandler<RegisterMerchantCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
  ) {}

  async execute({ input: { name, ...keys } }: RegisterMerchantCommand): Promise<NewMerchantCredentials> {
    const merchantId = this.ids.next();
    const accessKey = keys.accessKey ?? `ak_${randomString(24)}`;
    const secretKey = keys.secretKey ?? newSecretKey();
    const publishableKey = keys.publishableKey ?? newPublishableKey();
    await this.runner.run(
      merchantStream(merchantId),
      merchantDecider,
      { type: 'RegisterMerchant', merchantId, name, accessKey, secretKey, publishableKey, now: this.clock.now() },
      { metadata: { merchantId, actor: 'admin' } },
    );
    return { id: merchantId, name, accessKey, secretKey, publishableKey };
  }
}

/** `allowedOrigins`: the whole new list, already checked (allowed-origins.ts); undefined: unchanged. */
export class ChangeMerchantCommand extends UseCase<UseCaseInput<Extract<MerchantCommand, { type: 'ChangeMerchant' }>>, void> {}

@CommandHandler(ChangeMerchantCommand)
export class ChangeMerchantHandler implements ICommandHandler<ChangeMerchantCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ input: c }: ChangeMerchantCommand): Promise<void> {
    await this.runner.run(
      merchantStream(c.merchantId),
      merchantDecider,
      { type: 'ChangeMerchant', ...c, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId, actor: 'admin' } },
    );
  }
}

/** `generation`: that of the token the request came with. */
export class RevokeMerchantTokensCommand extends UseCase<UseCaseInput<Extract<MerchantCommand, { type: 'RevokeMerchantTokens' }>>, void> {}

@CommandHandler(RevokeMerchantTokensCommand)
export class RevokeMerchantTokensHandler implements ICommandHandler<RevokeMerchantTokensCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ input: c }: RevokeMerchantTokensCommand): Promise<void> {
    await this.runner.run(
      merchantStream(c.merchantId),
      merchantDecider,
      { type: 'RevokeMerchantTokens', ...c, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId, actor: 'merchant' } },
    );
  }
}

/** A new secret key for the merchant (answered once); every token issued before is revoked. */
export class RotateMerchantSecretKeyCommand extends UseCase<UseCaseInput<Extract<MerchantCommand, { type: 'RotateMerchantSecretKey' }>, 'secretKey'>, string> {}

@CommandHandler(RotateMerchantSecretKeyCommand)
export class RotateMerchantSecretKeyHandler implements ICommandHandler<RotateMerchantSecretKeyCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ input: { merchantId } }: RotateMerchantSecretKeyCommand): Promise<string> {
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
export class RotateMerchantPublishableKeyCommand extends UseCase<
  UseCaseInput<Extract<MerchantCommand, { type: 'RotateMerchantPublishableKey' }>, 'publishableKey'>,
  string
> {}

@CommandHandler(RotateMerchantPublishableKeyCommand)
export class RotateMerchantPublishableKeyHandler implements ICommandHandler<RotateMerchantPublishableKeyCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ input: { merchantId } }: RotateMerchantPublishableKeyCommand): Promise<string> {
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
