/** Admin use cases on widget variants: create, and change (publish, activate, archive, champion, rules). */
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { KeyedTurns } from '../../platform/keyed-turns.js';
import { UseCase, type UseCaseInput } from '../../platform/use-case.js';
import { type WidgetCommand, widgetDecider, WidgetSettings, widgetStream } from '../domain/widget.js';
import { UrlPolicy } from '../../integrations/index.js';
import { WidgetQueries } from '../read-models/widget-queries.js';

export class CreateWidgetCommand extends UseCase<UseCaseInput<Extract<WidgetCommand, { type: 'CreateWidget' }>, 'widgetId'>, number> {}

export class ChangeWidgetCommand extends UseCase<UseCaseInput<Extract<WidgetCommand, { type: 'ChangeWidget' }>>, void> {}

@CommandHandler(CreateWidgetCommand)
export class CreateWidgetHandler implements ICommandHandler<CreateWidgetCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly widgets: WidgetQueries,
    private readonly turns: KeyedTurns,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
    private readonly urls: UrlPolicy,
  ) {}

  async execute({ input: c }: CreateWidgetCommand): Promise<number> {
    await checkRewardValidationUrl(this.urls, c.settings);
    const widgetId = this.ids.next();
    const create: WidgetCommand = { type: 'CreateWidget', ...c, widgetId, now: this.clock.now() };
    if (c.settings.isChampion) {
      await crown(
        { runner: this.runner, widgets: this.widgets, turns: this.turns, clock: this.clock },
        c.merchantId,
        widgetId,
        c.settings.widgetGroupId ?? String(widgetId),
        create,
      );
    } else {
      await this.runner.run(widgetStream(widgetId), widgetDecider, create, { metadata: { merchantId: c.merchantId, actor: 'admin' } });
    }
    return widgetId;
  }
}

@CommandHandler(ChangeWidgetCommand)
export class ChangeWidgetHandler implements ICommandHandler<ChangeWidgetCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly widgets: WidgetQueries,
    private readonly turns: KeyedTurns,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly urls: UrlPolicy,
  ) {}

  async execute({ input: c }: ChangeWidgetCommand): Promise<void> {
    await checkRewardValidationUrl(this.urls, c.changes);
    const change: WidgetCommand = { type: 'ChangeWidget', ...c, now: this.clock.now() };
    const group = c.changes.isChampion ? (c.changes.widgetGroupId ?? (await this.widgets.byId(c.merchantId, c.widgetId))?.widget_group_id) : undefined;
    if (group !== undefined) {
      await crown({ runner: this.runner, widgets: this.widgets, turns: this.turns, clock: this.clock }, c.merchantId, c.widgetId, group, change);
    } else {
      await this.runner.run(widgetStream(c.widgetId), widgetDecider, change, { metadata: { merchantId: c.merchantId, actor: 'admin' } });
    }
  }
}

/** A widget's own reward validation URL passes the same check as the merchant's (public addresses only). */
async function checkRewardValidationUrl(urls: UrlPolicy, settings: Partial<WidgetSettings>): Promise<void> {
  if (typeof settings.rewardValidationUrl === 'string') await urls.check('reward_validation_url', settings.rewardValidationUrl);
}

/**
 * A group has one champion: crowning a variant (`command` makes it champion of `group`) demotes
 * the group's other champions in the same commit where the store can, so a crash never leaves
 * two; and crownings in one group take turns, so two at once never demote each other and leave
 * none: the last one crowned is the champion.
 */
async function crown(
  deps: { runner: CommandRunner; widgets: WidgetQueries; turns: KeyedTurns; clock: Clock },
  merchantId: number,
  widgetId: number,
  group: string,
  command: WidgetCommand,
): Promise<void> {
  await deps.turns.take(`widget-group:${merchantId}:${group}`, () =>
    deps.runner.runTogether(
      async (step) => {
        await step(widgetStream(widgetId), widgetDecider, command);
        const members = await deps.widgets.list({ where: { merchant_id: merchantId, widget_group_id: group }, limit: 1000 });
        for (const other of members) {
          if (other.id === widgetId || !other.settings.isChampion) continue;
          await step(widgetStream(other.id), widgetDecider, {
            type: 'ChangeWidget',
            widgetId: other.id,
            merchantId,
            changes: { isChampion: false },
            now: deps.clock.now(),
          });
        }
      },
      { metadata: { merchantId, actor: 'admin' } },
    ),
  );
}

export const widgetCommandHandlers = [CreateWidgetHandler, ChangeWidgetHandler];
