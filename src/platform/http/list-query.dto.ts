/** Query parameters shared by every list route; endpoints extend these with their filters. */
import type { Type } from '@nestjs/common';
import { ApiPropertyOptional, IntersectionType, OmitType } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { type Principal, requireOwnCustomer } from '../auth/principal.js';
import { BadRequestError } from '../errors.js';
import { Scalar } from '../read-store/read-store.js';

export class V1ListQueryDto {
  @ApiPropertyOptional({ description: 'Zero-based index of the first result', example: '0' })
  @IsOptional()
  @IsString()
  offset?: string;

  @ApiPropertyOptional({ description: 'Results per page: 1 to 100, default 20', example: '20' })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'Created on or after this date (YYYY-MM-DD, UTC)', example: '2026-01-01' })
  @IsOptional()
  @IsString()
  from_date?: string;

  @ApiPropertyOptional({ description: 'Created on or before this date (YYYY-MM-DD, UTC, inclusive)', example: '2026-12-31' })
  @IsOptional()
  @IsString()
  to_date?: string;
}

export class V2ListQueryDto {
  @ApiPropertyOptional({ description: "Opaque cursor from the previous page's next_page URL" })
  @IsOptional()
  @IsString()
  cursor?: string;

  @ApiPropertyOptional({ description: 'Results per page: 1 to 100, default 20', example: '20' })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'Created on or after this date (YYYY-MM-DD, UTC)', example: '2026-01-01' })
  @IsOptional()
  @IsString()
  from?: string;

  @ApiPropertyOptional({ description: 'Created on or before this date (YYYY-MM-DD, UTC, inclusive)', example: '2026-12-31' })
  @IsOptional()
  @IsString()
  to?: string;
}

/** A v1 list's query: the filters of the v2 list's query with v1's paging (offset, from_date, to_date). */
export function V1QueryOf<T extends V2ListQueryDto>(v2: Type<T>) {
  return IntersectionType(V1ListQueryDto, OmitType(v2, ['cursor', 'limit', 'from', 'to'] as const));
}

export class V1CampaignFilterDto {
  @ApiPropertyOptional({ description: 'Campaign (widget variant) id' })
  @IsOptional()
  @IsString()
  campaign_id?: string;
}

/** The same for a v2 list filtered by `widget_id`, which v1 calls `campaign_id` (spec §9.2: v1 identifies widget variants as campaigns). */
export function V1CampaignQueryOf<T extends V2ListQueryDto & { widget_id?: string }>(v2: Type<T>) {
  return IntersectionType(V1CampaignFilterDto, IntersectionType(V1ListQueryDto, OmitType(v2, ['cursor', 'limit', 'from', 'to', 'widget_id'] as const)));
}

/** A v1 body in the v2 route's terms: its `campaign_id` (validated by the v1 DTO) as `widget_id`. */
export function withWidgetId<T extends { campaign_id?: number | string }>(body: T): Omit<T, 'campaign_id'> & { widget_id: T['campaign_id'] } {
  const { campaign_id, ...rest } = body;
  return { ...rest, widget_id: campaign_id };
}

/** A v1 query's filters in the v2 list's terms: its `campaign_id` (checked here, so errors name it) as `widget_id`. */
export function asWidgetFilter<T extends { campaign_id?: string }>(query: T): Omit<T, 'campaign_id'> & { widget_id?: string } {
  const { campaign_id, ...rest } = query;
  const errors: string[] = [];
  optionalIdFilter('campaign_id', campaign_id, errors);
  if (errors.length) throw new BadRequestError(errors);
  return campaign_id === undefined ? rest : { ...rest, widget_id: campaign_id };
}

/** An optional integer id filter given as query text: a non-integer matches nothing, so it is refused. */
export function optionalIdFilter(name: string, raw: string | undefined, errors: string[]): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[1-9][0-9]{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    errors.push(`${name} must be a positive integer`);
    return undefined;
  }
  return Number(raw);
}

/**
 * The `where` of a list a customer token may call (spec §5.2 rule 4): the merchant, the
 * optional `widget_id` filter, and the advocate, which a customer token narrows to itself
 * (asking for another customer is 403).
 */
export function advocateListFilter(principal: Principal, query: { widget_id?: string; customer_id?: string }, customerField: string): Record<string, Scalar> {
  const errors: string[] = [];
  const widgetId = optionalIdFilter('widget_id', query.widget_id, errors);
  const customerId = optionalIdFilter('customer_id', query.customer_id, errors);
  if (errors.length) throw new BadRequestError(errors);
  requireOwnCustomer(principal, customerId);
  const where: Record<string, Scalar> = { merchant_id: principal.merchant.id };
  if (widgetId !== undefined) where.widget_id = widgetId;
  const advocate = principal.kind === 'customer' ? principal.customerId : customerId;
  if (advocate !== undefined) where[customerField] = advocate;
  return where;
}
