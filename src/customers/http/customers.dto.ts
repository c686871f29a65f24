import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { V1ListQueryDto, V2ListQueryDto } from '../../platform/http/list-query.dto.js';
import { IsEmailAddress } from '../../platform/http/validators.js';

export class UpsertCustomerDto {
  @ApiProperty({ description: 'The id the merchant assigns to its customer', example: 'cust-1001', maxLength: 255 })
  @IsDefined()
  @IsString()
  @Length(1, 255)
  account_id: string;

  @ApiPropertyOptional({ nullable: true, example: 'ann@example.com' })
  @IsOptional()
  @IsString()
  @IsEmailAddress()
  @MaxLength(320)
  email_address?: string | null;

  @ApiPropertyOptional({ nullable: true, example: 'Ann', maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  first_name?: string | null;

  @ApiPropertyOptional({ nullable: true, example: 'Lee', maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  last_name?: string | null;

  @ApiPropertyOptional({ nullable: true, maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  stripe_customer_id?: string | null;

  @ApiPropertyOptional({ nullable: true, maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  chargebee_customer_id?: string | null;
}

export class V2CustomersQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional({ description: "The merchant's account id" })
  @IsOptional()
  @IsString()
  account_id?: string;

  @ApiPropertyOptional({ description: 'Leading characters of the first or last name, case-insensitive', minLength: 1, maxLength: 255 })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  name?: string;
}

export class V1CustomersQueryDto extends V1ListQueryDto {
  @ApiPropertyOptional({ description: "The merchant's account id" })
  @IsOptional()
  @IsString()
  account_id?: string;
}

export class V1CustomerInfoQueryDto {
  @ApiPropertyOptional({ description: "The merchant's account id; account_id or email is required" })
  @IsOptional()
  @IsString()
  account_id?: string;

  @ApiPropertyOptional({ description: "The customer's email; account_id or email is required" })
  @IsOptional()
  @IsString()
  email?: string;
}
