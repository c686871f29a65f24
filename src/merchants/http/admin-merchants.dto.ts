import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsString, Length, Max, Min, ValidateIf } from 'class-validator';
import { EachElement, EachIsString } from '../../platform/http/validators.js';
import { MAX_ALLOWED_ORIGINS, originFault } from '../domain/allowed-origins.js';
import { SHARE_MESSAGE_POLICIES, type ShareMessagePolicy } from '../domain/merchant.js';

export class CreateMerchantDto {
  @ApiProperty({ example: 'Acme Outdoor', maxLength: 200 })
  @IsDefined()
  @IsString()
  @Length(1, 200)
  name: string;
}

/** No property can be cleared: null is refused (400), not taken for "unchanged" (docs/api-decisions.md). */
export class UpdateMerchantDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @ValidateIf((o: UpdateMerchantDto) => o.name !== undefined)
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ description: 'Whether share email_recipients are shown to this merchant (default false).' })
  @ValidateIf((o: UpdateMerchantDto) => o.can_see_recipients !== undefined)
  @IsBoolean()
  can_see_recipients?: boolean;

  @ApiPropertyOptional({ description: 'Share email recipients one advocate customer may address per UTC day (default 50)', minimum: 1, maximum: 100000 })
  @ValidateIf((o: UpdateMerchantDto) => o.share_recipients_per_customer_per_day !== undefined)
  @IsInt()
  @Min(1)
  @Max(100_000)
  share_recipients_per_customer_per_day?: number;

  @ApiPropertyOptional({ description: "Share email recipients of all the merchant's shares per UTC day (default 5000)", minimum: 1, maximum: 10000000 })
  @ValidateIf((o: UpdateMerchantDto) => o.share_recipients_per_merchant_per_day !== undefined)
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  share_recipients_per_merchant_per_day?: number;

  @ApiPropertyOptional({
    enum: SHARE_MESSAGE_POLICIES,
    description: "The message of a customer token's share: off (dropped), plain (no links or domains: 400), free (default plain)",
  })
  @ValidateIf((o: UpdateMerchantDto) => o.customer_share_message_policy !== undefined)
  @IsIn(SHARE_MESSAGE_POLICIES)
  customer_share_message_policy?: ShareMessagePolicy;

  @ApiPropertyOptional({
    description: 'Days the embedded library keeps the referral code a visitor arrived with in its first-party cookie (default 30; docs/embedding.md)',
    minimum: 1,
    maximum: 365,
  })
  @ValidateIf((o: UpdateMerchantDto) => o.attribution_days !== undefined)
  @IsInt()
  @Min(1)
  @Max(365)
  attribution_days?: number;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_ALLOWED_ORIGINS,
    example: ['https://shop.example', 'http://localhost:8080'],
    description:
      'The whole list of origins whose pages may call the browser routes (docs/embedding.md): exact scheme://host[:port], as a browser sends it; [] (the default) for none',
  })
  @ValidateIf((o: UpdateMerchantDto) => o.allowed_origins !== undefined)
  @IsArray()
  @ArrayMaxSize(MAX_ALLOWED_ORIGINS)
  @ArrayUnique()
  @EachIsString()
  @EachElement('isOrigin', originFault)
  allowed_origins?: string[];
}
