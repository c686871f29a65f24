import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsOptional, IsString, Length } from 'class-validator';

export class CreateMerchantDto {
  @ApiProperty({ example: 'Acme Outdoor', maxLength: 200 })
  @IsDefined()
  @IsString()
  @Length(1, 200)
  name: string;
}

export class UpdateMerchantDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ description: 'Whether share email_recipients are shown to this merchant (default false).' })
  @IsOptional()
  @IsBoolean()
  can_see_recipients?: boolean;
}
