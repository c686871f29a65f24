/**
 * The pipe validates a query DTO that class-transformer would only copy (copiesQueryAsIs) without
 * class-transformer: its answers must be ValidationPipe's own, for every query DTO of the API.
 */
import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { getMetadataStorage, IsOptional, IsString } from 'class-validator';
import { AppError } from '../errors.js';
import { copiesQueryAsIs, StrictValidationPipe } from './validation.js';
import { V1ListQueryDto, V2ListQueryDto } from './list-query.dto.js';
import {
  ConversionsQueryDto,
  PurchasesQueryDto,
  RewardsQueryDto,
  V1ConversionsQueryDto,
  V1PurchasesQueryDto,
  V1RewardsQueryDto,
} from '../../sales/http/purchases.dto.js';
import { OptOutsQueryDto, V1OptOutsQueryDto } from '../../email-opt-outs/http/opt-outs.controller.js';
import { PersonalLinksQueryDto } from '../../referral-links/http/referral-links.dto.js';
import { V1CustomerInfoQueryDto, V1CustomersQueryDto, V2CustomersQueryDto } from '../../customers/http/customers.dto.js';
import { OutboxQueryDto } from '../../email/http/admin-outbox.controller.js';
import { CouponsQueryDto, V1CouponsQueryDto } from '../../coupons/http/coupons.controllers.js';
import { WebhookDeliveriesQueryDto } from '../../webhooks/http/webhooks.dto.js';
import { EmailCapturesQueryDto } from '../../email-captures/http/email-captures.controller.js';
import { SharesQueryDto, V1SharesQueryDto } from '../../shares/http/shares.dto.js';
import { V1CampaignsQueryDto, V2WidgetsQueryDto } from '../../widgets/http/widgets.dto.js';

type Dto = new () => object;

const QUERY_DTOS: Dto[] = [
  V1ListQueryDto,
  V2ListQueryDto,
  PurchasesQueryDto,
  ConversionsQueryDto,
  RewardsQueryDto,
  V1PurchasesQueryDto,
  V1ConversionsQueryDto,
  V1RewardsQueryDto,
  OptOutsQueryDto,
  V1OptOutsQueryDto,
  PersonalLinksQueryDto,
  V2CustomersQueryDto,
  V1CustomersQueryDto,
  V1CustomerInfoQueryDto,
  OutboxQueryDto,
  CouponsQueryDto,
  V1CouponsQueryDto,
  WebhookDeliveriesQueryDto,
  EmailCapturesQueryDto,
  SharesQueryDto,
  V1SharesQueryDto,
  V2WidgetsQueryDto,
  V1CampaignsQueryDto,
];

const pipe = new StrictValidationPipe();
const asQuery = (metatype: Dto): ArgumentMetadata => ({ type: 'query', metatype, data: '' });

/** What a transform gave: the instance (its class and own properties) or the error it threw (its class and body). */
async function outcome(result: Promise<unknown>): Promise<unknown> {
  try {
    const value = (await result) as object;
    return { instance: value.constructor.name, properties: { ...value } };
  } catch (error) {
    return { error: (error as Error).constructor.name, body: error instanceof AppError ? error.errors : (error as Error).message };
  }
}

/** Queries that reach the validation (the pipe refuses repeated parameters and inherited names before it). */
function queriesFor(dto: Dto): Record<string, string>[] {
  const properties = [
    ...new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(dto, '', true, false)
        .map((m) => m.propertyName),
    ),
  ];
  const values = ['abc', '', '12', '-1', '0', '2026-01-01', 'true', 'x'.repeat(300), 'a b@c.d'];
  return [
    {},
    { unknown: '1' },
    { prototype: 'x' },
    Object.fromEntries(properties.map((p) => [p, '1'])),
    ...properties.flatMap((property) => values.map((value) => ({ [property]: value }))),
  ];
}

describe('StrictValidationPipe on queries', () => {
  it('takes the copy for every query DTO of the API', () => {
    expect(QUERY_DTOS.filter((dto) => !copiesQueryAsIs(dto)).map((dto) => dto.name)).toEqual([]);
  });

  it("answers every query as ValidationPipe's own transform does", async () => {
    let compared = 0;
    for (const dto of QUERY_DTOS) {
      for (const query of queriesFor(dto)) {
        const ours = await outcome(pipe.transform({ ...query }, asQuery(dto)));
        const nests = await outcome(ValidationPipe.prototype.transform.call(pipe, { ...query }, asQuery(dto)));
        expect({ dto: dto.name, query, outcome: ours }).toEqual({ dto: dto.name, query, outcome: nests });
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it('leaves a DTO that class-transformer changes to class-transformer', async () => {
    class Shouted {
      @IsOptional()
      @IsString()
      @Transform(({ value }) => String(value).toUpperCase())
      name?: string;
    }
    expect(copiesQueryAsIs(Shouted)).toBe(false);
    expect(await pipe.transform({ name: 'quiet' }, asQuery(Shouted))).toEqual(Object.assign(new Shouted(), { name: 'QUIET' }));
  });
});
