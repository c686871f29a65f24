/** POST /v1/shares and POST /v2/shares: one body, one way to a share. */
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../platform/errors.js';
import { normaliseEmail } from '../../email-opt-outs/index.js';
import { CustomerQueries } from '../../customers/index.js';
import { MerchantDirectory, shareSettings } from '../../merchants/index.js';
import { WidgetNoun, WidgetQueries } from '../../widgets/index.js';
import { CreateShareCommand } from '../commands/share-commands.js';
import type { ShareChannel } from '../domain/share-events.js';
import { holdsLink } from '../domain/share-message.js';
import { CreateShareDto } from './shares.dto.js';

/** A share asked for by a customer token: the end user's device, which the merchant's rules bound. */
export interface CustomerTokenShare {
  /** The address the request came from: the share's IP, as a personal link's (the body's is refused). */
  requestIp: string | null;
}

@Injectable()
export class ShareRequests {
  constructor(
    private readonly commands: CommandBus,
    private readonly widgets: WidgetQueries,
    private readonly customers: CustomerQueries,
    private readonly merchants: MerchantDirectory,
  ) {}

  /**
   * The new share's id. `customerId`: the advocate's internal id (checked here), or null.
   * `widgetNoun`: what the caller's API version calls the widget in a 404. `asCustomer`: the
   * request came with a customer token (the caller has refused the fields a merchant owns).
   */
  async create(
    merchantId: number,
    customerId: number | null,
    body: CreateShareDto,
    widgetNoun: WidgetNoun = 'widget',
    asCustomer?: CustomerTokenShare,
  ): Promise<number> {
    const widget = asCustomer
      ? await this.widgets.requireOffered(merchantId, Number(body.widget_id))
      : await this.widgets.require(merchantId, Number(body.widget_id), widgetNoun);
    const customer = customerId === null ? null : await this.customers.byId(merchantId, customerId);
    if (customerId !== null && !customer) throw new NotFoundError([`customer ${customerId} not found`]);
    const merchant = await this.merchants.doc(merchantId);
    if (!merchant) throw new NotFoundError([`merchant ${merchantId} not found`]);
    const settings = shareSettings(merchant);
    let message = body.message ?? null;
    if (asCustomer) {
      // The emails go out under the merchant's name from the advocate's address: only the customer's own.
      if (!customer?.email || normaliseEmail(customer.email) !== normaliseEmail(body.reward_email_address)) {
        throw new ForbiddenError(["a customer token can only share from its customer's own email address (reward_email_address)"]);
      }
      if (settings.customer_share_message_policy === 'off') message = null;
      if (settings.customer_share_message_policy === 'plain' && message !== null && holdsLink(message)) {
        throw new BadRequestError([
          {
            property: 'message',
            code: 'invalid',
            message: 'message must be plain text without links, addresses or domain names (the merchant’s policy for shares from customer tokens)',
          },
        ]);
      }
    }
    return this.commands.execute(
      new CreateShareCommand({
        merchantId,
        widgetId: widget.id,
        customerId,
        rewardEmailAddress: body.reward_email_address,
        emailRecipients: distinctAddresses(body.email_recipients),
        message,
        newsletterOptIn: body.newsletter_opt_in ?? false,
        sendReminder: body.send_reminder ?? false,
        ipAddress: asCustomer ? asCustomer.requestIp : (body.ip_address ?? null),
        linkParameters: body.link_parameters ?? null,
        origin: asCustomer ? 'customer_token' : 'merchant',
        limits: { perCustomer: settings.share_recipients_per_customer_per_day, perMerchant: settings.share_recipients_per_merchant_per_day },
      }),
    );
  }

  /**
   * A customer's share through a social channel: its own new referral code (spec §1 rule 4), no
   * recipients, emails or reminder; counted as one recipient against the merchant's daily limits.
   */
  async createSocial(merchantId: number, customerId: number, share: SocialShare): Promise<number> {
    const widget = await this.widgets.requireOffered(merchantId, share.widgetId);
    const merchant = await this.merchants.doc(merchantId);
    if (!merchant) throw new NotFoundError([`merchant ${merchantId} not found`]);
    const settings = shareSettings(merchant);
    return this.commands.execute(
      new CreateShareCommand({
        merchantId,
        widgetId: widget.id,
        customerId,
        rewardEmailAddress: share.rewardEmailAddress,
        emailRecipients: [],
        message: null,
        newsletterOptIn: share.newsletterOptIn,
        sendReminder: false,
        ipAddress: share.requestIp,
        linkParameters: null,
        origin: 'customer_token',
        channel: share.channel,
        limits: { perCustomer: settings.share_recipients_per_customer_per_day, perMerchant: settings.share_recipients_per_merchant_per_day },
      }),
    );
  }
}

/** A share of a customer token through a social channel (the browser routes): the page posts the link itself. */
export interface SocialShare {
  widgetId: number;
  channel: Exclude<ShareChannel, 'email'>;
  /** The customer's own address: the share's reward address, as an email share's must be. */
  rewardEmailAddress: string;
  newsletterOptIn: boolean;
  requestIp: string | null;
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
