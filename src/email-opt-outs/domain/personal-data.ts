/** The personal values of opt-outs (issue 31): each address under its own subject, in a job's list too. */
import { emailSubject, fieldsOf, itemsOf, PersonalDataMap } from '../../platform/personal-data/personal-fields.js';
import { EmailOptedOut, EmailOptOutRemoved } from './email-opt-out-events.js';
import { EmailOptOutJobSubmitted } from './email-opt-out.js';

const address = (d: EmailOptedOut['data'] | EmailOptOutRemoved['data']) =>
  fieldsOf(d as Record<string, unknown>, ['emailAddress'], emailSubject(d.merchantId, d.emailAddress));

export const emailOptOutPersonalData: PersonalDataMap = {
  EmailOptedOut: address,
  EmailOptOutRemoved: address,
  EmailOptOutJobSubmitted: (d: EmailOptOutJobSubmitted['data']) => itemsOf(d, 'emailAddresses', (item) => emailSubject(d.merchantId, item)),
};
