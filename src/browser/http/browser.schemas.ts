/** Response schemas of the browser routes: only what a page needs to render a widget, nothing internal. */
import { bool, dateTime, int, nullable, num, object, oneOfStrings, str } from '../../platform/http/response-schemas.js';
import { OBJECTIVES, REWARD_TYPES } from '../../widgets/index.js';

export const BROWSER_WIDGET = object(
  {
    id: int(),
    name: str(),
    objective: oneOfStrings(OBJECTIVES),
    widget_group_id: str('The group of variants this widget is one of'),
    distribution: int('Percentage chance of being served among the published, active variants of its group (100 when it is the only one)'),
    reward_type: nullable(oneOfStrings(REWARD_TYPES), 'What the advocate earns; null: no reward'),
    reward_amount: nullable(num(), 'The amount, in the unit of reward_type'),
    destination_url: nullable(str('Where a referral link of this widget leads')),
  },
  { description: 'A published, active widget variant as a page renders it' },
);

export const BROWSER_EMAIL_CAPTURE = object({
  id: int(),
  widget_id: int('The widget the address was captured with'),
  email_address: str(),
  newsletter_opt_in: bool(),
  created_at: dateTime(),
});

export const BROWSER_REFERRAL_LINK = object({
  code: str("The customer's personal referral code for the widget: the same on every call"),
  url: str('The trackable link of the code, to show or post', { format: 'uri' }),
  widget_id: int(),
});

export const BROWSER_SHARE = object({
  id: int(),
  widget_id: int(),
  channel: oneOfStrings(['email', 'facebook', 'twitter', 'messenger']),
  referral_code: str("The share's own new referral code"),
  url: str("The trackable link of the share's code: what a social share posts", { format: 'uri' }),
});

export const BROWSER_REFERRAL_CODE = object({
  code: str('The code as the merchant has it (a lookup ignores letter case)'),
  attribution_days: int('Days to keep the code in the first-party cookie (the merchant’s attribution_days)'),
});

export const BROWSER_PURCHASE = object({
  id: int(),
  order_id: str(),
  referral_code: nullable(str('The code the purchase was recorded with (the token’s, else the body’s)')),
  conversion_id: nullable(int('The conversion the code made; null when it made none')),
});
