/** Request shapes of the browser routes (browser.controller.ts). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsEmailAddress, IsIdValue } from '../../platform/http/validators.js';

export class VariantQueryDto {
  @ApiProperty({
    description: "An opaque id the page keeps for its visitor (e.g. a random id in the library's first-party storage): the same id is always served the same variant",
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
