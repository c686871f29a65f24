/**
 * The trackable link `GET /l/{code}` (public): records a click (unless a repeat or throttled:
 * click-admission.ts) and redirects to the widget's
 * destination with the link parameters and the code as query values. A blacklisted code still
 * redirects, but without the offer (no code, no parameters). The visitor's own query (the utm_*
 * a newsletter tool appends) goes along, never setting a key the destination or the link sets.
 */
import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../platform/errors.js';
import { ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { WidgetQueries } from '../../widgets/index.js';
import { RecordClickCommand } from '../commands/referral-link-commands.js';
import { ReferralLinkQueries } from '../read-models/referral-link-queries.js';
import { ClickAdmission, clickHeader, REFERRER_MAX, USER_AGENT_MAX } from './click-admission.js';

/** The query parameter that carries the code to the merchant's page. */
export const CODE_PARAMETER = 'referral_code';

@ApiTags('trackable links')
@Controller('l')
export class TrackableLinkController {
  constructor(
    private readonly commands: CommandBus,
    private readonly links: ReferralLinkQueries,
    private readonly widgets: WidgetQueries,
    private readonly admission: ClickAdmission,
  ) {}

  @Get(':code')
  @ApiOperation({ summary: 'Follow a referral link: 302 to the destination; 404 for an unknown code', security: [] })
  @ApiFoundResponse({
    description:
      "To the destination (Location), with no body: its own query as written, the visitor's query, then the link parameters and the code; a blacklisted code without the link's values",
    headers: {
      Location: { description: 'The destination URL', schema: { type: 'string', format: 'uri' } },
      'Cache-Control': { description: 'no-store: every visit is a click', schema: { type: 'string', enum: ['no-store'] } },
    },
  })
  @ApiErrorResponses(
    [400, 'A code holding a control or bidirectional formatting character, or a malformed Host header'],
    [404, 'An unknown code, or one whose widget has no destination'],
    ['default', 'Any other error (408 for a request too slow to arrive, 503 while the service shuts down): the error body'],
  )
  async follow(@Param('code') code: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const link = await this.links.byCodeAnyMerchant(code);
    if (!link) throw new NotFoundError([`referral code ${code.slice(0, 64)} not found`]);
    const widget = await this.widgets.byId(link.merchant_id, link.widget_id);
    const destination = widget?.settings.destinationUrl;
    // Parsed before the click is recorded: a destination stored before URLs were checked with the
    // WHATWG parser may not parse, and is then no destination (404), not a 500 after a click.
    const target = destination && URL.canParse(destination) ? new URL(destination) : undefined;
    if (!target) throw new NotFoundError([`referral code ${code.slice(0, 64)} has no destination`]);
    // HEAD is safe (RFC 9110 §9.2.1): link previews and uptime checks ask it, and are no clicks.
    // The link's own code: the one asked for may be in another case (ReferralLinkQueries.byCodeAnyMerchant).
    // A repeat or throttled follow is not recorded but still redirects (click-admission.ts).
    if (request.method !== 'HEAD') {
      const userAgent = clickHeader(request.headers['user-agent'], USER_AGENT_MAX);
      if (this.admission.admit(link.code, request.ip, userAgent) === 'record') {
        await this.commands.execute(
          new RecordClickCommand({ code: link.code, ipAddress: request.ip ?? null, userAgent, referrer: clickHeader(request.headers.referer, REFERRER_MAX) }),
        );
      }
    }
    // The code is the link's own: a link parameter of that name does not make a second one.
    const parameters = Object.entries(link.link_parameters ?? {}).filter(([key]) => key !== CODE_PARAMETER);
    const added: [string, string][] = [...parameters.map(([key, value]): [string, string] => [key, String(value)]), [CODE_PARAMETER, link.code]];
    target.search = redirectQuery(target.search, rawQuery(request.url), link.blacklisted ? [] : added, new Set(added.map(([key]) => key)));
    reply.status(302).header('location', target.href).header('cache-control', 'no-store').send();
  }
}

/** The query of a request's URL as the client sent it (no `?`). */
function rawQuery(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
}

/** A query pair's name as a form decoder reads it (`+` a space, %-escapes decoded); a malformed escape leaves it as written. */
function pairName(pair: string): string {
  const at = pair.indexOf('=');
  const name = (at < 0 ? pair : pair.slice(0, at)).replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * The redirect's query. The destination's own pairs stay as the merchant wrote them, byte for
 * byte (a signed URL, `%20`, a bare `flag`, `~`, an encoded `/`), less those whose name the link
 * sets; then the visitor's pairs, as sent, less any whose name the destination or the link sets
 * (the link's, blacklisted or not: a visitor does not bring the offer back) or that has no name; then
 * the link's parameters and `referral_code`, encoded with encodeURIComponent. Re-encoding the
 * query through URLSearchParams turned `%20` into `+` and `flag` into `flag=`, which breaks signatures.
 * `added` is empty for a blacklisted code; `linkNames` are the names the link sets either way.
 */
function redirectQuery(search: string, visitor: string, added: [string, string][], linkNames: Set<string>): string {
  const own = search.startsWith('?') ? search.slice(1) : search;
  const ownPairs = own === '' ? [] : own.split('&');
  const kept = added.length === 0 ? ownPairs : ownPairs.filter((pair) => !linkNames.has(pairName(pair)));
  const taken = new Set([...ownPairs.map(pairName), ...linkNames]);
  const passed = visitor.split('&').filter((pair) => pairName(pair) !== '' && !taken.has(pairName(pair)));
  const appended = added.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`);
  return [...kept, ...passed, ...appended].join('&');
}
