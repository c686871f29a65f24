/** Request bodies and query parameters of the admin webhook routes. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayNotEmpty, ArrayUnique, IsArray, IsBoolean, IsDefined, IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { IsHttpUrl } from '../../platform/http/url-validation.js';
import { EachIsIn, EachIsString, IsKeyValueMap } from '../../platform/http/validators.js';
import { V2ListQueryDto } from '../../platform/http/list-query.dto.js';
import { DELIVERY_STATUSES } from '../domain/webhook-delivery.js';
import { WEBHOOK_KINDS, type WebhookKind } from '../domain/webhook-kinds.js';

const URL_DESCRIPTION = 'An http or https URL; it must resolve to public addresses only (unless WEBHOOK_ALLOW_PRIVATE_URLS)';
const EVENTS_DESCRIPTION = 'Kinds this endpoint receives; left out or null: every kind, including kinds added later';

export class CreateWebhookEndpointDto {
  @ApiProperty({ example: 'https://shop.example/hooks/referrals', maxLength: 2000, description: URL_DESCRIPTION })
  @IsDefined()
  @IsString()
  @MaxLength(2000)
  @IsHttpUrl({ disallowAuth: true })
  url: string;

  @ApiPropertyOptional({ enum: WEBHOOK_KINDS, isArray: true, nullable: true, description: EVENTS_DESCRIPTION })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @EachIsString()
  @EachIsIn(WEBHOOK_KINDS)
  events?: WebhookKind[] | null;
}

export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional({ example: 'https://shop.example/hooks/referrals', maxLength: 2000, description: URL_DESCRIPTION })
  @ValidateIf((o: UpdateWebhookEndpointDto) => o.url !== undefined)
  @IsString()
  @MaxLength(2000)
  @IsHttpUrl({ disallowAuth: true })
  url?: string;

  @ApiPropertyOptional({ enum: WEBHOOK_KINDS, isArray: true, nullable: true, description: EVENTS_DESCRIPTION })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @EachIsString()
  @EachIsIn(WEBHOOK_KINDS)
  events?: WebhookKind[] | null;
}

export class ClientApiDto {
  @ApiProperty({ type: String, nullable: true, example: 'https://shop.example/referrals/share-instructions', description: `${URL_DESCRIPTION}; null: none` })
  @ValidateIf((o: ClientApiDto) => o.share_instructions_url !== null)
  @IsDefined()
  @IsString()
  @MaxLength(2000)
  @IsHttpUrl({ disallowAuth: true })
  share_instructions_url: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'https://shop.example/referrals/validate-reward', description: `${URL_DESCRIPTION}; null: none` })
  @ValidateIf((o: ClientApiDto) => o.reward_validation_url !== null)
  @IsDefined()
  @IsString()
  @MaxLength(2000)
  @IsHttpUrl({ disallowAuth: true })
  reward_validation_url: string | null;
}

export class CustomHeadersDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { 'X-Vendor': 'referral-service' },
    description: 'Header name (HTTP token characters) → value (printable ASCII); at most 20. {} removes them all.',
  })
  @IsDefined()
  @IsKeyValueMap()
  headers: Record<string, string>;

  @ApiPropertyOptional({ default: false, description: 'The custom headers replace X-SERVICE-SIGNATURE[-V2] and webhook-signature' })
  @IsOptional()
  @IsBoolean()
  replace_signature?: boolean;
}

export class WebhookDeliveriesQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: (typeof DELIVERY_STATUSES)[number];

  @ApiPropertyOptional({ enum: WEBHOOK_KINDS })
  @IsOptional()
  @IsIn(WEBHOOK_KINDS)
  kind?: WebhookKind;

  @ApiPropertyOptional({ description: 'Only deliveries to this endpoint' })
  @IsOptional()
  @IsString()
  endpoint_id?: string;
}
