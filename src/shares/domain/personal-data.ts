/**
 * The personal values of the shares feature's events (issue 31). What the advocate wrote or sent
 * from (address, message, IP) is the advocate's; each recipient address is its recipient's; an
 * email message is about its recipient and the advocate who sent it, so it is sealed under both.
 */
import type { EmailMessage } from '../../email/index.js';
import {
  allOf,
  customerSubject,
  emailSubject,
  fieldsOf,
  itemsOf,
  PersonalDataMap,
  PersonalValue,
  Subject,
} from '../../platform/personal-data/personal-fields.js';
import { ReminderEmailSent, ShareCreated, ShareEmailsSent } from './share-events.js';

type Data = Record<string, unknown>;

const advocateOf = (merchantId: number, email: unknown, customerId: unknown): Subject[] => [
  ...emailSubject(merchantId, email),
  ...customerSubject(merchantId, customerId),
];

/** Each message's recipient, subject line and text, under its recipient and the advocate. */
function messagesOf(merchantId: number, messages: readonly EmailMessage[] | undefined, advocate: readonly Subject[]): PersonalValue[] {
  return (messages ?? []).flatMap((m, i) =>
    fieldsOf(m as unknown as Data, ['to', 'subject', 'text'], [...emailSubject(merchantId, m?.to), ...advocate], ['messages', i]),
  );
}

const recipientsOf = (d: Data, name: string, merchantId: number) => itemsOf(d, name, (item) => emailSubject(merchantId, item));

export const sharePersonalData: PersonalDataMap = {
  ShareCreated: (d: ShareCreated['data']) =>
    allOf(
      fieldsOf(d as Data, ['rewardEmailAddress', 'message', 'ipAddress'], advocateOf(d.merchantId, d.rewardEmailAddress, d.customerId)),
      recipientsOf(d as Data, 'emailRecipients', d.merchantId),
    ),
  ShareEmailsSent: (d: ShareEmailsSent['data']) => {
    const advocate = advocateOf(d.merchantId, d.advocateEmailAddress, d.advocateCustomerId);
    return allOf(
      fieldsOf(d as Data, ['advocateEmailAddress', 'message'], advocate),
      recipientsOf(d as Data, 'skippedOptedOut', d.merchantId),
      messagesOf(d.merchantId, d.messages, advocate),
    );
  },
  ReminderEmailSent: (d: ReminderEmailSent['data']) => {
    const advocate = advocateOf(d.merchantId, d.advocateEmailAddress, d.customerId);
    return allOf(fieldsOf(d as Data, ['advocateEmailAddress'], advocate), messagesOf(d.merchantId, d.messages, advocate));
  },
};
