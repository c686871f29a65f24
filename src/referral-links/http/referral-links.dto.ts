import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, IsString, Length, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { V2ListQueryDto } from '../../platform/http/list-query.dto.js';
import { IsEmailAddress, IsIdValue, IsLinkParameters } from '../../platform/http/validators.js';

@ApiSchema({ description: 'Give customer_id (a customer PURL) or email_address (an email PURL); neither is a 400.' })
export class CreatePersonalLinkDto {
  @ApiProperty({ description: 'Widget variant id', example: 42 })
  @IsDefined()
  @IsIdValue()
  widget_id: number | string;

  @ApiPropertyOptional({ description: 'Internal customer id: a customer PURL. One of customer_id / email_address.' })
  @IsOptional()
  @IsIdValue()
  customer_id?: number | string;

  @ApiPropertyOptional({ description: 'Advocate email: an email PURL. One of customer_id / email_address.' })
  @IsOptional()
  @IsString()
  @IsEmailAddress()
  @MaxLength(320)
  email_address?: string;

  @ApiPropertyOptional({ description: 'Link parameters (JSON object)', example: { utm_source: 'advocate' } })
  @IsOptional()
  @IsLinkParameters()
  link_parameters?: Record<string, string | number | boolean>;
}

export class ReplaceLinkParametersDto {
  @ApiProperty({ description: 'Replaces every tracking parameter of the link; null clears them', nullable: true })
  @ValidateIf((o: ReplaceLinkParametersDto) => o.link_parameters !== null)
  @IsDefined()
  @IsLinkParameters()
  link_parameters: Record<string, string | number | boolean> | null;
}

export class PersonalLinksQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  widget_id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  customer_id?: string;

  @ApiPropertyOptional({ description: 'Advocate email of email PURLs' })
  @IsOptional()
  @IsString()
  email_address?: string;
}

export class V1CampaignRefDto {
  @ApiProperty({ example: 42, description: 'Campaign (widget variant) id' })
  @IsDefined()
  @IsIdValue()
  id: number | string;
}

export class V1CustomerDto {
  @ApiPropertyOptional({ description: "The merchant's customer id (account id); required when any other customer field is given" })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(255)
  first_name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(255)
  last_name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsEmailAddress()
  @MaxLength(320)
  email?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(255)
  stripe_customer_id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(255)
  chargebee_customer_id?: string;
}

@ApiSchema({
  description: 'Give customer.id or email (neither is a 400); the other customer fields need customer.id; coupon_code and coupon_bank_id exclude each other.',
})
export class V1ReferralCodeDto {
  @ApiProperty({ type: V1CampaignRefDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => V1CampaignRefDto)
  campaign: V1CampaignRefDto;

  @ApiPropertyOptional({ type: V1CustomerDto, description: 'customer.id or email is required' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => V1CustomerDto)
  customer?: V1CustomerDto;

  @ApiPropertyOptional({ description: 'Advocate email, for email PURLs' })
  @IsOptional()
  @IsString()
  @IsEmailAddress()
  @MaxLength(320)
  email?: string;

  @ApiPropertyOptional({ description: 'A multi-use coupon code already in one of your coupon banks; not with coupon_bank_id' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  coupon_code?: string;

  @ApiPropertyOptional({ description: 'Take an available code from this coupon bank; not with coupon_code' })
  @IsOptional()
  @IsIdValue()
  coupon_bank_id?: number | string;

  @ApiPropertyOptional({ description: 'Link parameters to set on the code (JSON object)' })
  @IsOptional()
  @IsLinkParameters()
  parameters?: Record<string, string | number | boolean>;
}

@ApiSchema({ description: 'Give exactly one of customer_id and email_address.' })
export class VanityLinkDto {
  @ApiProperty()
  @IsDefined()
  @IsIdValue()
  widget_id: number | string;

  @ApiProperty({ description: 'The vanity code: 3 to 32 letters, digits, - or _', example: 'jane-loves-acme', pattern: '^[A-Za-z0-9_-]{3,32}$' })
  @IsDefined()
  @IsString()
  @Length(3, 32)
  code: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsIdValue()
  customer_id?: number | string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsEmailAddress()
  email_address?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsLinkParameters()
  link_parameters?: Record<string, string | number | boolean>;
}
