/**
 * The trackable link `GET /l/{code}` (public): records a click and redirects to the widget's
 * destination with the link parameters and the code as query values. A blacklisted code still
 * redirects, but without the offer (no code, no parameters).
 */
import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiFoundResponse, ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../platform/errors.js';
import { WidgetQueries } from '../../widgets/read-models/widget-queries.js';
import { RecordClickCommand } from '../commands/referral-link-commands.js';
import { ReferralLinkQueries } from '../read-models/referral-link-queries.js';

/** The query parameter that carries the code to the merchant's page. */
export const CODE_PARAMETER = 'referral_code';

@ApiTags('trackable links')
@Controller('l')
export class TrackableLinkController {
  constructor(
    private readonly commands: CommandBus,
    private readonly links: ReferralLinkQueries,
    private readonly widgets: WidgetQueries,
  ) {}

  @Get(':code')
  @ApiOperation({ summary: 'Follow a referral link: 302 to the destination; 404 for an unknown code' })
  @ApiFoundResponse({ description: 'To the destination (Location), with the code and the link parameters in its query; a blacklisted code without them' })
  @ApiNotFoundResponse({ description: 'An unknown code' })
  async follow(@Param('code') code: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const link = await this.links.byCodeAnyMerchant(code);
    if (!link) throw new NotFoundError([`referral code ${code.slice(0, 64)} not found`]);
    const widget = await this.widgets.byId(link.merchant_id, link.widget_id);
    const destination = widget?.settings.destinationUrl;
    // Parsed before the click is recorded: a destination stored before URLs were checked with the
    // WHATWG parser may not parse, and is then no destination (404), not a 500 after a click.
    const target = destination && URL.canParse(destination) ? new URL(destination) : undefined;
    if (!target) throw new NotFoundError([`referral code ${code.slice(0, 64)} has no destination`]);
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value.slice(0, 1000) : null;
    };
    // HEAD is safe (RFC 9110 §9.2.1): link previews and uptime checks ask it, and are no clicks.
    if (request.method !== 'HEAD') await this.commands.execute(new RecordClickCommand(code, request.ip ?? null, header('user-agent'), header('referer')));
    if (!link.blacklisted) {
      for (const [key, value] of Object.entries(link.link_parameters ?? {})) target.searchParams.set(key, String(value));
      target.searchParams.set(CODE_PARAMETER, link.code);
    }
    reply.status(302).header('location', target.toString()).header('cache-control', 'no-store').send();
  }
}
