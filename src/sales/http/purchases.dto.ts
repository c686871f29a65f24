import { ApiProperty, ApiPropertyOptional, ApiSchema, OmitType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDefined, IsIn, IsInt, IsIP, IsObject, IsOptional, IsString, Length, MaxLength, Min, ValidateNested } from 'class-validator';
import { V1CampaignQueryOf, V2ListQueryDto } from '../../platform/http/list-query.dto.js';
import { IsEmailAddress, IsIdValue, IsMoney } from '../../platform/http/validators.js';
import { NEW_CUSTOMER_VALUES } from '../domain/purchase.js';

export class ProductDto {
  @ApiProperty({ example: 'TENT-2P' })
  @IsDefined()
  @IsString()
  @Length(1, 255)
  sku: string;

  @ApiProperty({ description: 'Units', example: 1 })
  @IsDefined()
  @IsInt()
  @Min(0)
  quantity: number;

  @ApiProperty({ description: 'Currency units', example: 129.5 })
  @IsDefined()
  @IsMoney()
  @Min(0)
  price: number;
}

export class CreatePurchaseDto {
  @ApiProperty({ description: 'Unique order id; a second purchase with it answers 409', example: 'ORD-1001' })
  @IsDefined()
  @IsString()
  @Length(1, 255)
  order_id: string;

  @ApiPropertyOptional({ example: 129.5 })
  @IsOptional()
  @IsMoney()
  @Min(0)
  payment_amount?: number;

  @ApiPropertyOptional({ enum: NEW_CUSTOMER_VALUES, description: 'For the reward criterion that the buyer must be a new customer' })
  @IsOptional()
  @IsString()
  @IsIn(NEW_CUSTOMER_VALUES)
  new_customer?: (typeof NEW_CUSTOMER_VALUES)[number];

  @ApiPropertyOptional({ description: "The friend's coupon code; tried when there is no referral_code" })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  coupon_code?: string;

  @ApiPropertyOptional({ description: "The advocate's referral code; generates a conversion; wins over coupon_code" })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  referral_code?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsEmailAddress()
  @MaxLength(320)
  email_address?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsIP()
  ip_address?: string;

  @ApiPropertyOptional({ description: 'Referrer URL' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  referrer?: string;

  @ApiPropertyOptional({ description: 'Internal customer id of the buyer' })
  @IsOptional()
  @IsIdValue()
  customer_id?: number | string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsIdValue()
  widget_id?: number | string;

  @ApiPropertyOptional({ type: [ProductDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => ProductDto)
  products?: ProductDto[];
}

export class PurchasesQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  widget_id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  customer_id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  order_id?: string;
}

@ApiSchema({ description: 'Give referral_code or coupon_code, or both (referral_code is tried first); neither is a 400.' })
export class CreateConversionDto {
  @ApiProperty({ description: 'The purchase that led to the conversion' })
  @IsDefined()
  @IsIdValue()
  purchase_id: number | string;

  @ApiPropertyOptional({ description: 'Wins when both codes are given' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  referral_code?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 100)
  coupon_code?: string;
}

export class ConversionsQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  widget_id?: string;

  @ApiPropertyOptional({ description: 'Advocate customer id' })
  @IsOptional()
  @IsString()
  customer_id?: string;

  @ApiPropertyOptional({ description: "Advocate's email" })
  @IsOptional()
  @IsString()
  email_address?: string;
}

export class RewardsQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  widget_id?: string;

  @ApiPropertyOptional({ description: 'Advocate customer id' })
  @IsOptional()
  @IsString()
  customer_id?: string;

  @ApiPropertyOptional({ enum: ['pending', 'approved', 'rejected'] })
  @IsOptional()
  @IsIn(['pending', 'approved', 'rejected'])
  status?: string;
}

export class RewardDecisionDto {
  @ApiProperty({ description: 'Who decides (kept in the event)', example: 'ops@shop.example' })
  @IsDefined()
  @IsString()
  @Length(1, 200)
  by: string;

  @ApiPropertyOptional({ example: 'goodwill gesture' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;
}

export class V1PurchasesQueryDto extends V1CampaignQueryOf(PurchasesQueryDto) {}
export class V1ConversionsQueryDto extends V1CampaignQueryOf(ConversionsQueryDto) {}
export class V1RewardsQueryDto extends V1CampaignQueryOf(RewardsQueryDto) {}

/** POST /v1/purchases: POST /v2/purchases's body, its widget_id called campaign_id as v1 calls widget variants campaigns. */
export class V1CreatePurchaseDto extends OmitType(CreatePurchaseDto, ['widget_id'] as const) {
  @ApiPropertyOptional({ description: 'Campaign (widget variant) id' })
  @IsOptional()
  @IsIdValue()
  campaign_id?: number | string;
}
