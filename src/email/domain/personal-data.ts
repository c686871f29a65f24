/** The personal values of email delivery events (issue 31): the recipient's address, and a refusal's reply (it may quote the address). */
import { emailSubject, fieldsOf, PersonalDataMap } from '../../platform/personal-data/personal-fields.js';
import { EmailDelivered, EmailFailed, EmailSuppressed } from './email-events.js';

type Delivery = EmailDelivered['data'] | EmailSuppressed['data'] | EmailFailed['data'];

const recipient = (d: Delivery) => fieldsOf(d as Record<string, unknown>, ['to', 'reply'], emailSubject(d.merchantId, d.to));

export const emailPersonalData: PersonalDataMap = {
  EmailDelivered: recipient,
  EmailSuppressed: recipient,
  EmailFailed: recipient,
};
