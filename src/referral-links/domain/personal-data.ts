/**
 * The personal values of referral links (issue 31): the advocate's address and the IP the link was
 * made from, under the advocate's subjects. A click's IP, user agent and referrer are the friend's,
 * whom nothing in the event names: they have no subject to be sealed under and stay as recorded.
 */
import { customerSubject, emailSubject, fieldsOf, PersonalDataMap } from '../../platform/personal-data/personal-fields.js';
import { ReferralLinkAdvocateEmailChanged, ReferralLinkCreated } from './referral-link.js';

export const referralLinkPersonalData: PersonalDataMap = {
  ReferralLinkCreated: (d: ReferralLinkCreated['data']) =>
    fieldsOf(
      d as Record<string, unknown>,
      ['advocateEmail', 'ipAddress'],
      [...emailSubject(d.merchantId, d.advocateEmail), ...customerSubject(d.merchantId, d.advocateCustomerId)],
    ),
  ReferralLinkAdvocateEmailChanged: (d: ReferralLinkAdvocateEmailChanged['data']) =>
    fieldsOf(d as Record<string, unknown>, ['advocateEmail'], emailSubject(d.merchantId, d.advocateEmail)),
};
