import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { V1ListQueryDto, V2ListQueryDto } from '../../platform/http/list-query.dto.js';

export class V2WidgetsQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional({ description: 'Only variants of this group' })
  @IsOptional()
  @IsString()
  widget_group_id?: string;

  @ApiPropertyOptional({ description: 'Only variants with exactly this name' })
  @IsOptional()
  @IsString()
  name?: string;
}

export class V1CampaignsQueryDto extends V1ListQueryDto {}
