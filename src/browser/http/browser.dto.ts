/** Request shapes of the browser routes (browser.controller.ts). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { EachIsEmail, EachIsString, IsEmailAddress, IsIdValue } from '../../platform/http/validators.js';

export class VariantQueryDto {
  @ApiProperty({
    description:
      "An opaque id the page keeps for its visitor (e.g. a random id in the library's first-party storage): the same id is always served the same variant",
    example: 'v_3f9c2a7e1b',
    maxLength: 128,
    pattern: '^[A-Za-z0-9._:-]+$',
  })
  @IsDefined()
  @IsString()
  @MaxLength(128)
  @Matches(/^[A-Za-z0-9._:-]+$/, { message: 'visitor must be 1 to 128 letters, digits, . _ : or -' })
  visitor: string;
}

export class BrowserEmailCaptureDto {
  @ApiProperty({ description: 'A published, active email-capture widget of the merchant', example: 1004 })
  @IsDefined()
  @IsIdValue()
  widget_id: number | string;

  @ApiProperty({ example: 'friend@example.com' })
  @IsDefined()
  @IsString()
  @IsEmailAddress()
  @MaxLength(320)
  email_address: string;

  @ApiPropertyOptional({ description: 'Whether the visitor asked for the newsletter (default false)' })
  @IsOptional()
  @IsBoolean()
  newsletter_opt_in?: boolean;

  @ApiPropertyOptional({ description: 'The referral code the visitor arrived with, if any; 400 when it does not exist' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  referral_code?: string;
}

export class BrowserReferralLinkDto {
  @ApiProperty({ description: 'A published, active widget of the merchant', example: 1002 })
  @IsDefined()
  @IsIdValue()
  widget_id: number | string;
}

/** The channels a page shares through: email sends the service's emails; the others post the share's link from the page. */
export const BROWSER_SHARE_CHANNELS = ['email', 'facebook', 'twitter', 'messenger'] as const;

export class BrowserShareDto {
  @ApiProperty({ description: 'A published, active widget of the merchant', example: 1002 })
  @IsDefined()
  @IsIdValue()
  widget_id: number | string;

  @ApiProperty({
    enum: BROWSER_SHARE_CHANNELS,
    description: 'email: the service emails email_recipients; facebook, twitter, messenger: the page posts the share’s link (no recipients, no message)',
  })
  @IsDefined()
  @IsIn(BROWSER_SHARE_CHANNELS)
  channel: (typeof BROWSER_SHARE_CHANNELS)[number];

  @ApiPropertyOptional({ type: [String], description: 'email only (required there): 1 to 50 recipient addresses', example: ['friend@example.com'] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @EachIsString()
  @EachIsEmail()
  email_recipients?: string[];

  @ApiPropertyOptional({ maxLength: 5000, description: "email only: the advocate's message, under the merchant's customer_share_message_policy" })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  message?: string;

  @ApiPropertyOptional({ description: 'Whether the advocate asked for the newsletter (default false)' })
  @IsOptional()
  @IsBoolean()
  newsletter_opt_in?: boolean;
}

export class BrowserPurchaseDto {
  @ApiProperty({
    description: 'An HS256 JWT the merchant\'s server signed with its secret key, holding the order (docs/embedding.md, "Trusting purchases from a page")',
    example: 'eyJhbGciOiJIUzI1NiJ9.eyJvcmRlcl9pZCI6Ik9SRC0xMDAxIiwiZXhwIjoxNzk1OTE3NDg2fQ.signature',
  })
  @IsDefined()
  @IsString()
  @MaxLength(16_384)
  purchase_token: string;

  @ApiPropertyOptional({
    description:
      'The referral code the visitor arrived with (the first-party cookie); used only when the token carries none, and must equal the token’s when it does',
  })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  referral_code?: string;
}
