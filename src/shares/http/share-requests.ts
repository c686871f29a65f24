/** POST /v1/shares and POST /v2/shares: one body, one way to a share. */
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { NotFoundError } from '../../platform/errors.js';
import { normaliseEmail } from '../../email-opt-outs/domain/email-opt-out.js';
import { CustomerQueries } from '../../customers/read-models/customer-queries.js';
import { WidgetNoun, WidgetQueries } from '../../widgets/read-models/widget-queries.js';
import { CreateShareCommand } from '../commands/share-commands.js';
import { CreateShareDto } from './shares.dto.js';

@Injectable()
export class ShareRequests {
  constructor(
    private readonly commands: CommandBus,
    private readonly widgets: WidgetQueries,
    private readonly customers: CustomerQueries,
  ) {}

  /**
   * The new share's id. `customerId`: the advocate's internal id (checked here), or null.
   * `widgetNoun`: what the caller's API version calls the widget in a 404.
   */
  async create(merchantId: number, customerId: number | null, body: CreateShareDto, widgetNoun: WidgetNoun = 'widget'): Promise<number> {
    const widget = await this.widgets.require(merchantId, Number(body.widget_id), widgetNoun);
    if (customerId !== null && !(await this.customers.byId(merchantId, customerId))) throw new NotFoundError([`customer ${customerId} not found`]);
    return this.commands.execute(
      new CreateShareCommand({
        merchantId,
        widgetId: widget.id,
        customerId,
        rewardEmailAddress: body.reward_email_address,
        emailRecipients: distinctAddresses(body.email_recipients),
        message: body.message ?? null,
        newsletterOptIn: body.newsletter_opt_in ?? false,
        sendReminder: body.send_reminder ?? false,
        ipAddress: body.ip_address ?? null,
        linkParameters: body.link_parameters ?? null,
      }),
    );
  }
}

/** Each address once, compared as opt-outs compare them (normaliseEmail); the first spelling is kept. */
function distinctAddresses(addresses: readonly string[]): string[] {
  const seen = new Set<string>();
  return addresses.filter((address) => {
    const key = normaliseEmail(address);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
