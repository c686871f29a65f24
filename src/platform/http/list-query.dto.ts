/** Query parameters shared by every list route; endpoints extend these with their filters. */
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

export class V1ListQueryDto {
  @ApiPropertyOptional({ description: 'Zero-based index of the first result', example: '0' })
  @IsOptional()
  @IsString()
  offset?: string;

  @ApiPropertyOptional({ description: 'Results per page: 1 to 100, default 20', example: '20' })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'Created on or after this date (YYYY-MM-DD, UTC)', example: '2026-01-01' })
  @IsOptional()
  @IsString()
  from_date?: string;

  @ApiPropertyOptional({ description: 'Created on or before this date (YYYY-MM-DD, UTC, inclusive)', example: '2026-12-31' })
  @IsOptional()
  @IsString()
  to_date?: string;
}

export class V2ListQueryDto {
  @ApiPropertyOptional({ description: 'Opaque cursor from the previous page\'s next_page URL' })
  @IsOptional()
  @IsString()
  cursor?: string;

  @ApiPropertyOptional({ description: 'Results per page: 1 to 100, default 20', example: '20' })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'Created on or after this date (YYYY-MM-DD, UTC)', example: '2026-01-01' })
  @IsOptional()
  @IsString()
  from?: string;

  @ApiPropertyOptional({ description: 'Created on or before this date (YYYY-MM-DD, UTC, inclusive)', example: '2026-12-31' })
  @IsOptional()
  @IsString()
  to?: string;
}

/** An optional integer id filter given as query text: a non-integer matches nothing, so it is refused. */
export function optionalIdFilter(name: string, raw: string | undefined, errors: string[]): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) {
    errors.push(`${name} must be a positive integer`);
    return undefined;
  }
  return Number(raw);
}
