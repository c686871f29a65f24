/** Admin coupon banks, and v1/v2 GET /coupons: the coupons associated with a customer's referral codes. */
import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsOptional, IsString, Length } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import { AdminGuard, V1BasicAuthGuard, V2TokenGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, CurrentPrincipal, CustomerTokenAllowed, type MerchantRecord, type Principal } from '../../platform/auth/principal.js';
import { BadRequestError, NotFoundError, written } from '../../platform/errors.js';
import { ADMIN_UNAUTHORIZED, adminNotFound, ApiErrorResponses, READ_MODELS_BEHIND } from '../../platform/http/error.schemas.js';
import { advocateListFilter, V1QueryOf, V2ListQueryDto } from '../../platform/http/list-query.dto.js';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { Links, parseId } from '../../platform/http/links.js';
import { parseV1Paging, parseV2Paging, v1Search, v2Walked, v2WalkQuery } from '../../platform/http/paging.js';
import { arrayOf, listPage, object, searchResults, wrapped } from '../../platform/http/response-schemas.js';
import { elementReports } from '../../platform/http/validation.js';
import { EachElement, EachIsString, HasOwnCharacterRule } from '../../platform/http/validators.js';
import { Scalar } from '../../platform/read-store/read-store.js';
import { V1Embedding, V1Embeds } from '../../customers/index.js';
import { MerchantDirectory } from '../../merchants/index.js';
import { AddCouponCodesCommand, CreateCouponBankCommand } from '../commands/coupon-bank-commands.js';
import { CouponQueries } from '../read-models/coupon-queries.js';
import { CouponBankDoc, CouponDoc } from '../read-models/coupons.projection.js';
import { COUPON_BANK, V1_COUPON, V2_COUPON } from './coupon.schemas.js';
import { foldCode } from '../../platform/codes.js';

const CODES_TAKEN: [number, string] = [409, 'A code is already in another of your coupon banks, or differs in case alone from one that is'];

/**
 * Why a coupon code of an upload is refused, or null. Codes are typed by people at checkout: spaces
 * around one are trimmed (the code is stored without them), and one that is blank, holds a space
 * or an invisible character (control or formatting: `a\nb`, a zero-width space) could never be
 * typed back, or would look like another.
 */
export function couponCodeFault(element: unknown): string | null {
  if (typeof element !== 'string') return null;
  const code = element.trim();
  if (code === '') return 'must not be blank';
  if (/[\p{Cc}\p{Cf}]/u.test(code)) return 'must not hold control or invisible formatting characters';
  if (/\s/.test(code)) return 'must not hold whitespace';
  if (code.length > 100) return 'must be at most 100 characters';
  return null;
}

export class CouponCodesDto {
  @ApiProperty({
    type: [String],
    example: ['SPRING-10', 'SPRING-11'],
    description:
      '1 to 10,000 codes of 1 to 100 characters, trimmed; no whitespace or control characters inside. Codes are compared case-insensitively: one that differs in case alone from a code of your banks is refused (409)',
  })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10_000)
  @EachIsString()
  @EachElement('isCouponCode', couponCodeFault)
  @HasOwnCharacterRule()
  codes: string[];
}

/**
 * The upload's codes trimmed (as couponCodeFault allowed them). Two that differ in case alone are
 * one code to whoever types them: refused, each named by its index (a code given twice exactly is
 * taken once, as before).
 */
function uploadedCodes(codes: string[]): string[] {
  const trimmed = codes.map((code) => code.trim());
  const first = new Map<string, number>();
  const faults: { index: number; message: string }[] = [];
  trimmed.forEach((code, index) => {
    const folded = foldCode(code);
    const at = first.get(folded);
    if (at === undefined) first.set(folded, index);
    else if (trimmed[at] !== code) faults.push({ index, message: `(${code}) is codes.${at} (${trimmed[at]}) in another case` });
  });
  if (faults.length > 0) throw new BadRequestError(elementReports('codes', faults, 'invalid'));
  return trimmed;
}

export class CreateCouponBankDto extends CouponCodesDto {
  @ApiProperty({ example: 'Spring friends' })
  @IsDefined()
  @IsString()
  @Length(1, 200)
  name: string;
}

export class CouponsQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional({ description: 'Advocate customer id (a customer token sees only its own)' })
  @IsOptional()
  @IsString()
  customer_id?: string;
}

export class V1CouponsQueryDto extends V1QueryOf(CouponsQueryDto) {}

/** The coupons a list shows: those a referral code has taken, of the advocate asked for. */
function couponsFilter(principal: Principal, query: { customer_id?: string }): Record<string, Scalar> {
  return { ...advocateListFilter(principal, query, 'advocate_customer_id'), associated: true };
}

function presentBank(doc: CouponBankDoc) {
  return {
    id: doc.id,
    name: doc.name,
    codes_count: doc.codes_count,
    available_count: doc.codes_count - doc.assigned_count,
    created_at: doc.created_at,
    last_modified_at: doc.last_modified_at,
  };
}

/** A coupon record (not shown in the spec): the code, its bank and the referral code it attributes to. */
export function v2Coupon(doc: CouponDoc, links: Links) {
  return {
    code: doc.code,
    coupon_bank_id: doc.bank_id,
    referral_code: doc.referral_code,
    widget: doc.widget_id !== null ? links.v2('widgets', doc.widget_id) : null,
    customer: doc.advocate_customer_id !== null ? links.v2('customers', doc.advocate_customer_id) : null,
    associated_at: doc.associated_at,
  };
}

@ApiTags('admin')
@ApiBearerAuth('admin')
@UseGuards(AdminGuard)
@Controller('admin/merchants/:merchant_id/coupon_banks')
export class AdminCouponBanksController {
  constructor(
    private readonly commands: CommandBus,
    private readonly coupons: CouponQueries,
    private readonly merchants: MerchantDirectory,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Upload a coupon bank of multi-use codes' })
  @ApiCreatedResponse({ description: '`{coupon_bank}`', schema: wrapped('coupon_bank', COUPON_BANK) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'), CODES_TAKEN, READ_MODELS_BEHIND)
  async create(@Param('merchant_id') raw: string, @Body() body: CreateCouponBankDto) {
    const merchantId = await this.merchant(raw);
    const bankId = await this.commands.execute(new CreateCouponBankCommand({ merchantId, name: body.name, codes: uploadedCodes(body.codes) }));
    return {
      coupon_bank: presentBank(
        written(await this.coupons.bank(merchantId, bankId), `coupon bank ${bankId}`, `GET /admin/merchants/${merchantId}/coupon_banks/${bankId}`),
      ),
    };
  }

  @Get()
  @ApiOperation({ summary: "The merchant's coupon banks" })
  @ApiOkResponse({
    description: '`{coupon_banks}`: the banks, oldest first, unpaged (the first 10,000)',
    schema: object({ coupon_banks: arrayOf(COUPON_BANK) }),
  })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async list(@Param('merchant_id') raw: string) {
    const merchantId = await this.merchant(raw);
    const docs = await this.coupons.banks.list({ where: { merchant_id: merchantId }, limit: 10_000 });
    return { coupon_banks: docs.map(presentBank) };
  }

  @Get(':bank_id')
  @ApiOperation({ summary: 'A coupon bank' })
  @ApiOkResponse({ description: '`{coupon_bank}`', schema: wrapped('coupon_bank', COUPON_BANK) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or coupon bank'))
  async get(@Param('merchant_id') raw: string, @Param('bank_id') rawBank: string) {
    return { coupon_bank: presentBank(await this.bank(raw, rawBank)) };
  }

  @Post(':bank_id/codes')
  @HttpCode(200)
  @ApiOperation({ summary: 'Add codes to a coupon bank (codes already in it are ignored)' })
  @ApiOkResponse({ description: '`{coupon_bank}` with the codes added', schema: wrapped('coupon_bank', COUPON_BANK) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or coupon bank'), CODES_TAKEN, READ_MODELS_BEHIND)
  async add(@Param('merchant_id') raw: string, @Param('bank_id') rawBank: string, @Body() body: CouponCodesDto) {
    const bank = await this.bank(raw, rawBank);
    await this.commands.execute(new AddCouponCodesCommand({ merchantId: bank.merchant_id, bankId: bank.id, codes: uploadedCodes(body.codes) }));
    return {
      coupon_bank: presentBank(
        written(
          await this.coupons.bank(bank.merchant_id, bank.id),
          `coupon bank ${bank.id}`,
          `GET /admin/merchants/${bank.merchant_id}/coupon_banks/${bank.id}`,
        ),
      ),
    };
  }

  private async bank(raw: string, rawBank: string): Promise<CouponBankDoc> {
    const merchantId = await this.merchant(raw);
    const bank = await this.coupons.bank(merchantId, parseId(rawBank, 'coupon bank'));
    if (!bank) throw new NotFoundError([`coupon bank ${rawBank} not found`]);
    return bank;
  }

  private async merchant(raw: string): Promise<number> {
    return (await this.merchants.requireFromPath(raw)).id;
  }
}

@ApiTags('v2 coupons')
@ApiBearerAuth('token')
@UseGuards(V2TokenGuard)
@Controller('v2/coupons')
export class V2CouponsController {
  constructor(
    private readonly coupons: CouponQueries,
    private readonly linkFactory: LinkFactory,
  ) {}

  @Get()
  @CustomerTokenAllowed()
  @ApiOperation({ summary: "Coupons associated with advocates' referral codes; a customer token sees only its own" })
  @ApiOkResponse({ description: 'A list page of Coupon', schema: listPage(V2_COUPON) })
  @ApiErrorResponses(400, 401, 403)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: CouponsQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const page = await this.coupons.walk(v2WalkQuery(paging, couponsFilter(principal, query)));
    const links = this.linkFactory.for(request);
    return v2Walked(request, this.linkFactory.origin(request), page, (doc) => v2Coupon(doc, links));
  }
}

/** v1 coupon: the v2 record with its campaign and advocate embedded, as v1 records embed them. */
async function v1Coupon(doc: CouponDoc, embeds: V1Embeds) {
  return {
    code: doc.code,
    coupon_bank_id: doc.bank_id,
    referral_code: doc.referral_code,
    campaign: await embeds.campaign(doc.widget_id),
    customer: await embeds.customerExcerpt(doc.advocate_customer_id),
    associated_at: doc.associated_at,
  };
}

@ApiTags('v1 coupons')
@ApiBasicAuth('basic')
@UseGuards(V1BasicAuthGuard)
@Controller('v1/coupons')
export class V1CouponsController {
  constructor(
    private readonly coupons: CouponQueries,
    private readonly embedding: V1Embedding,
  ) {}

  @Get()
  @ApiOperation({ summary: "Search coupons associated with advocates' referral codes (filters of GET /v2/coupons)" })
  @ApiOkResponse({ description: 'SearchResults of Coupon', schema: searchResults(V1_COUPON) })
  @ApiErrorResponses(400, 401)
  async search(@CurrentMerchant() merchant: MerchantRecord, @Query() query: V1CouponsQueryDto, @Req() request: FastifyRequest) {
    const embeds = this.embedding.for(merchant.id, request);
    return v1Search(this.coupons.coupons, parseV1Paging(query), couponsFilter({ kind: 'merchant', merchant }, query), (docs) =>
      Promise.all(docs.map((d) => v1Coupon(d, embeds))),
    );
  }
}
