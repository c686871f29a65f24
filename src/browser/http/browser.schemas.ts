/** Response schemas of the browser routes: only what a page needs to render a widget, nothing internal. */
import { bool, dateTime, int, nullable, num, object, oneOfStrings, str } from '../../platform/http/response-schemas.js';
import { OBJECTIVES, REWARD_TYPES } from '../../widgets/domain/widget.js';

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
