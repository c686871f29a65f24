/** The personal values of captured addresses (issue 31): the address and the IP it came from, the address's. */
import { emailSubject, fieldsOf, PersonalDataMap } from '../../platform/personal-data/personal-fields.js';
import { EmailCaptured } from './email-capture-events.js';

export const emailCapturePersonalData: PersonalDataMap = {
  EmailCaptured: (d: EmailCaptured['data']) =>
    fieldsOf(d as Record<string, unknown>, ['emailAddress', 'ipAddress'], emailSubject(d.merchantId, d.emailAddress)),
};
