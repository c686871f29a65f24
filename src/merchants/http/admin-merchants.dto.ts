import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsString, Length, ValidateIf } from 'class-validator';

export class CreateMerchantDto {
  @ApiProperty({ example: 'Acme Outdoor', maxLength: 200 })
  @IsDefined()
  @IsString()
  @Length(1, 200)
  name: string;
}

/** Neither property can be cleared: null is refused (400), not taken for "unchanged" (docs/api-decisions.md). */
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
}
