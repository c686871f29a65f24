import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsIP, IsOptional, IsString, MaxLength } from 'class-validator';
import { V1CampaignQueryOf, V2ListQueryDto } from '../../platform/http/list-query.dto.js';
import { EachIsEmail, EachIsString, IsEmailAddress, IsIdValue, IsLinkParameters } from '../../platform/http/validators.js';

export class CreateShareDto {
  @ApiProperty({ example: 42 })
  @IsDefined()
  @IsIdValue()
  widget_id: number | string;

  @ApiProperty({
    description: "Address from which the share is sent (the advocate); with a customer token, the customer's own address (403 otherwise)",
    example: 'ann@example.com',
  })
  @IsDefined()
  @IsString()
  @IsEmailAddress()
  @MaxLength(320)
  reward_email_address: string;

  @ApiProperty({ type: [String], description: '1 to 50 recipient addresses', example: ['bob@example.com'] })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @EachIsString()
  @EachIsEmail()
  email_recipients: string[];

  @ApiPropertyOptional({
    maxLength: 5000,
    description:
      "With a customer token, per the merchant's customer_share_message_policy: plain (default) refuses links and domain names (400), off drops the message",
  })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  message?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  newsletter_opt_in?: boolean;

  @ApiPropertyOptional({ description: 'Send a reminder to recipients who have not converted after REMINDER_DELAY_MS (default 3 days)' })
  @IsOptional()
  @IsBoolean()
  send_reminder?: boolean;

  @ApiPropertyOptional({
    example: '203.0.113.7',
    description: "The advocate's IP address; not with a customer token (403): the request's address is the share's",
  })
  @IsOptional()
  @IsString()
  @IsIP()
  ip_address?: string;

  @ApiPropertyOptional({ description: 'Internal customer id of the advocate' })
  @IsOptional()
  @IsIdValue()
  customer_id?: number | string;

  @ApiPropertyOptional({ description: 'Custom referral parameters (JSON object); not with a customer token (403)' })
  @IsOptional()
  @IsLinkParameters()
  link_parameters?: Record<string, string | number | boolean>;
}

export class SharesQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  widget_id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  customer_id?: string;

  @ApiPropertyOptional({ description: 'Reward email address of the share' })
  @IsOptional()
  @IsString()
  email_address?: string;
}

export class V1SharesQueryDto extends V1CampaignQueryOf(SharesQueryDto) {}

/** POST /v1/shares: POST /v2/shares's body, its widget_id called campaign_id as v1 calls widget variants campaigns. */
export class V1CreateShareDto extends OmitType(CreateShareDto, ['widget_id'] as const) {
  @ApiProperty({ example: 42, description: 'Campaign (widget variant) id' })
  @IsDefined()
  @IsIdValue()
  campaign_id: number | string;
}
