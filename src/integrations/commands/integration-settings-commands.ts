/** Admin use cases on a merchant's integration settings: client-API URLs, custom headers. */
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { UseCase, type UseCaseInput } from '../../platform/use-case.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { BadRequestError, ErrorElement } from '../../platform/errors.js';
import { type IntegrationSettingsCommand, integrationSettingsDecider, integrationSettingsStream } from '../domain/integration-settings.js';
import { UrlPolicy } from '../outbound/url-policy.js';

export class ConfigureClientApiCommand extends UseCase<UseCaseInput<Extract<IntegrationSettingsCommand, { type: 'ConfigureClientApi' }>>, void> {}

export class ConfigureCustomHeadersCommand extends UseCase<UseCaseInput<Extract<IntegrationSettingsCommand, { type: 'ConfigureCustomHeaders' }>>, void> {}

@CommandHandler(ConfigureClientApiCommand)
export class ConfigureClientApiHandler implements ICommandHandler<ConfigureClientApiCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly urls: UrlPolicy,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ input: c }: ConfigureClientApiCommand): Promise<void> {
    const faults: ErrorElement[] = [];
    for (const [property, url] of [
      ['share_instructions_url', c.shareInstructionsUrl],
      ['reward_validation_url', c.rewardValidationUrl],
    ] as const) {
      if (url === null) continue;
      await this.urls.check(property, url).catch((error: unknown) => {
        if (error instanceof BadRequestError) faults.push(...error.errors);
        else throw error;
      });
    }
    if (faults.length > 0) throw new BadRequestError(faults);
    await this.runner.run(
      integrationSettingsStream(c.merchantId),
      integrationSettingsDecider,
      { type: 'ConfigureClientApi', ...c, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId, actor: 'admin' } },
    );
  }
}

@CommandHandler(ConfigureCustomHeadersCommand)
export class ConfigureCustomHeadersHandler implements ICommandHandler<ConfigureCustomHeadersCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ input: c }: ConfigureCustomHeadersCommand): Promise<void> {
    await this.runner.run(
      integrationSettingsStream(c.merchantId),
      integrationSettingsDecider,
      { type: 'ConfigureCustomHeaders', ...c, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId, actor: 'admin' } },
    );
  }
}

export const integrationSettingsCommandHandlers = [ConfigureClientApiHandler, ConfigureCustomHeadersHandler];
