import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsDefined, IsIn, IsInt, IsObject, IsOptional, IsString, Length, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { IsHttpUrl } from '../../platform/http/url-validation.js';
import { IsMoney, MAX_REWARD_MONEY } from '../../platform/http/validators.js';
import { OBJECTIVES, REWARD_TYPES } from '../domain/widget.js';

export class RewardCriteriaDto {
  @ApiPropertyOptional({ description: "Reward only when the purchase's new_customer is yes" })
  @IsOptional()
  @IsBoolean()
  new_customers_only?: boolean;

  @ApiPropertyOptional({
    nullable: true,
    minimum: 0,
    maximum: MAX_REWARD_MONEY,
    description: 'Minimum payment_amount of the purchase; at most 4 decimal places',
  })
  @IsOptional()
  @IsMoney()
  @Min(0)
  @Max(MAX_REWARD_MONEY)
  minimum_purchase_amount?: number | null;

  @ApiPropertyOptional({ nullable: true, description: 'Most rewards one advocate can earn on this widget' })
  @IsOptional()
  @IsInt()
  @Min(1)
  max_rewards_per_advocate?: number | null;

  @ApiPropertyOptional({
    nullable: true,
    minimum: 0,
    maximum: MAX_REWARD_MONEY,
    description:
      "Most reward amount one advocate can earn on this widget: the rewards' amounts added as they are (percentages for percent_discount); at most 4 decimal places",
  })
  @IsOptional()
  @IsMoney()
  @Min(0)
  @Max(MAX_REWARD_MONEY)
  max_reward_amount_per_advocate?: number | null;

  @ApiPropertyOptional({ nullable: true, description: 'Rolling window of the two caps, in days; null = lifetime' })
  @IsOptional()
  @IsInt()
  @Min(1)
  cap_window_days?: number | null;
}

export class FraudChecksDto {
  @ApiPropertyOptional({ description: 'Reject when the friend is the advocate (same customer id); default on' })
  @IsOptional()
  @IsBoolean()
  same_customer?: boolean;

  @ApiPropertyOptional({
    description: "Reject when the friend's email is the advocate's, ignoring letter case and surrounding spaces (same_email); default on",
  })
  @IsOptional()
  @IsBoolean()
  same_email?: boolean;

  @ApiPropertyOptional({
    description:
      'Reject when the emails match as same_email compares them, also ignoring a +tag at common providers (gmail.com, googlemail.com, outlook.com, hotmail.com, live.com, icloud.com, me.com, protonmail.com, proton.me, fastmail.com) and, for Gmail, dots in the name and googlemail.com for gmail.com (similar_email; when same_email is on too, addresses it reports are not reported again)',
  })
  @IsOptional()
  @IsBoolean()
  similar_email?: boolean;

  @ApiPropertyOptional({ description: 'Reject when the purchase comes from the IP address of the share or link creation' })
  @IsOptional()
  @IsBoolean()
  same_ip?: boolean;
}

export class WidgetFieldsDto {
  @ApiPropertyOptional({ enum: OBJECTIVES })
  @IsOptional()
  @IsString()
  @IsIn(OBJECTIVES)
  objective?: (typeof OBJECTIVES)[number];

  @ApiPropertyOptional({ description: 'Group of variants; defaults to the widget id', minLength: 1, maxLength: 100 })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  widget_group_id?: string;

  @ApiPropertyOptional({ description: 'Percentage chance of being served', minimum: 0, maximum: 100 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(100)
  distribution?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  published?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  archived?: boolean;

  @ApiPropertyOptional({ description: 'Champion of its group; crowning one demotes the others' })
  @IsOptional()
  @IsBoolean()
  is_champion?: boolean;

  @ApiPropertyOptional({ enum: REWARD_TYPES, nullable: true })
  @IsOptional()
  @IsString()
  @IsIn(REWARD_TYPES)
  reward_type?: (typeof REWARD_TYPES)[number] | null;

  @ApiPropertyOptional({
    nullable: true,
    minimum: 0,
    maximum: MAX_REWARD_MONEY,
    description: 'In units of the reward type (percent_discount: the percentage, 15 = 15 %); at most 4 decimal places',
  })
  @IsOptional()
  @IsMoney()
  @Min(0)
  @Max(MAX_REWARD_MONEY)
  reward_amount?: number | null;

  @ApiPropertyOptional({ nullable: true, example: 'https://shop.example/welcome' })
  @IsOptional()
  @IsString()
  @IsHttpUrl()
  destination_url?: string | null;

  @ApiPropertyOptional({ type: RewardCriteriaDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RewardCriteriaDto)
  reward_criteria?: RewardCriteriaDto;

  @ApiPropertyOptional({ type: FraudChecksDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => FraudChecksDto)
  fraud_checks?: FraudChecksDto;

  @ApiPropertyOptional({ nullable: true, description: "Overrides the merchant's custom reward validation URL" })
  @IsOptional()
  @IsString()
  @IsHttpUrl()
  reward_validation_url?: string | null;
}

@ApiSchema({ description: 'reward_type and reward_amount are set together, or both null (a widget without a reward).' })
export class CreateWidgetDto extends WidgetFieldsDto {
  @ApiProperty({ example: 'Give $10, get $10', maxLength: 200 })
  @IsDefined()
  @IsString()
  @Length(1, 200)
  name: string;
}

@ApiSchema({ description: 'reward_type and reward_amount are set together, or both null (a widget without a reward).' })
export class UpdateWidgetDto extends WidgetFieldsDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @ValidateIf((o: UpdateWidgetDto) => o.name !== undefined)
  @IsString()
  @Length(1, 200)
  name?: string;
}
