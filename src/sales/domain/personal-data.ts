/**
 * The personal values of the sales feature's events (issue 31). A purchase's address, IP and
 * referrer (its query string may carry personal data) are the buyer's; a conversion names the
 * advocate and the friend, each sealed under their own subjects; a reward's address and the words
 * that decided it are the advocate's.
 */
import { allOf, customerSubject, emailSubject, fieldsOf, PersonalDataMap, Subject } from '../../platform/personal-data/personal-fields.js';
import { ConversionAttributed } from './conversion-events.js';
import { PurchaseRecorded } from './purchase.js';
import { RewardFacts } from './reward-events.js';

type Data = Record<string, unknown>;

const advocateOf = (d: Pick<RewardFacts, 'merchantId' | 'advocateCustomerId' | 'advocateEmailAddress'>): Subject[] => [
  ...emailSubject(d.merchantId, d.advocateEmailAddress),
  ...customerSubject(d.merchantId, d.advocateCustomerId),
];

/** A reward event: its advocate's address, and the free text of whoever decided (`note`, `reason`). */
const reward = (d: RewardFacts) => fieldsOf(d as unknown as Data, ['advocateEmailAddress', 'note', 'reason'], advocateOf(d));

export const salesPersonalData: PersonalDataMap = {
  // `newCustomer` is yes/no/unknown: nothing that names the buyer.
  PurchaseRecorded: (d: PurchaseRecorded['data']) =>
    fieldsOf(
      d as Data,
      ['emailAddress', 'ipAddress', 'referrer'],
      [...emailSubject(d.merchantId, d.emailAddress), ...customerSubject(d.merchantId, d.customerId)],
    ),
  ConversionAttributed: (d: ConversionAttributed['data']) =>
    allOf(
      fieldsOf(d as Data, ['advocateEmailAddress'], advocateOf(d)),
      fieldsOf(d as Data, ['friendEmailAddress'], [...emailSubject(d.merchantId, d.friendEmailAddress), ...customerSubject(d.merchantId, d.friendCustomerId)]),
    ),
  RewardPending: reward,
  RewardApproved: reward,
  RewardRejected: reward,
  RewardManuallyApproved: reward,
  RewardManuallyRejected: reward,
};
