/** Admin use cases on widget variants: create, and change (publish, activate, archive, champion, rules). */
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { widgetDecider, WidgetSettings, widgetStream } from '../domain/widget.js';
import { UrlPolicy } from '../../webhooks/delivery/url-policy.js';
import { WidgetQueries } from '../read-models/widget-queries.js';

export class CreateWidgetCommand extends Command<number> {
  constructor(
    readonly merchantId: number,
    readonly settings: Partial<WidgetSettings> & { name: string },
  ) {
    super();
  }
}

export class ChangeWidgetCommand extends Command<void> {
  constructor(
    readonly merchantId: number,
    readonly widgetId: number,
    readonly changes: Partial<WidgetSettings>,
  ) {
    super();
  }
}

@CommandHandler(CreateWidgetCommand)
export class CreateWidgetHandler implements ICommandHandler<CreateWidgetCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly widgets: WidgetQueries,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
    private readonly urls: UrlPolicy,
  ) {}

  async execute(c: CreateWidgetCommand): Promise<number> {
    await checkRewardValidationUrl(this.urls, c.settings);
    const widgetId = this.ids.next();
    await this.runner.run(
      widgetStream(widgetId),
      widgetDecider,
      { type: 'CreateWidget', widgetId, merchantId: c.merchantId, settings: c.settings, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId, actor: 'admin' } },
    );
    if (c.settings.isChampion) await demoteOtherChampions(this.runner, this.widgets, this.clock, c.merchantId, widgetId);
    return widgetId;
  }
}

@CommandHandler(ChangeWidgetCommand)
export class ChangeWidgetHandler implements ICommandHandler<ChangeWidgetCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly widgets: WidgetQueries,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly urls: UrlPolicy,
  ) {}

  async execute(c: ChangeWidgetCommand): Promise<void> {
    await checkRewardValidationUrl(this.urls, c.changes);
    await this.runner.run(
      widgetStream(c.widgetId),
      widgetDecider,
      { type: 'ChangeWidget', widgetId: c.widgetId, merchantId: c.merchantId, changes: c.changes, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId, actor: 'admin' } },
    );
    if (c.changes.isChampion) await demoteOtherChampions(this.runner, this.widgets, this.clock, c.merchantId, c.widgetId);
  }
}

/** A widget's own reward validation URL passes the same check as the merchant's (public addresses only). */
async function checkRewardValidationUrl(urls: UrlPolicy, settings: Partial<WidgetSettings>): Promise<void> {
  if (typeof settings.rewardValidationUrl === 'string') await urls.check('reward_validation_url', settings.rewardValidationUrl);
}

/** A group has one champion: crowning a variant demotes the others of its group. */
async function demoteOtherChampions(runner: CommandRunner, widgets: WidgetQueries, clock: Clock, merchantId: number, widgetId: number) {
  const champion = await widgets.byId(merchantId, widgetId);
  if (!champion) return;
  const group = await widgets.list({ where: { merchant_id: merchantId, widget_group_id: champion.widget_group_id }, limit: 1000 });
  for (const other of group) {
    if (other.id === widgetId || !other.settings.isChampion) continue;
    await runner.run(
      widgetStream(other.id),
      widgetDecider,
      { type: 'ChangeWidget', widgetId: other.id, merchantId, changes: { isChampion: false }, now: clock.now() },
      { metadata: { merchantId, actor: 'admin' } },
    );
  }
}

export const widgetCommandHandlers = [CreateWidgetHandler, ChangeWidgetHandler];
