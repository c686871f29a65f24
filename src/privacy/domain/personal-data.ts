/** The personal values of erasure jobs' events, and whose (platform/personal-data). */
import { emailSubject, fieldsOf, itemsOf, PersonalDataMap, Subject } from '../../platform/personal-data/personal-fields.js';
import type { UserDataDeletionCompleted, UserDataDeletionRequested } from './user-data-deletion.js';

const job = (jobId: number): Subject[] => [{ kind: 'job', jobId }];

export const privacyPersonalData: PersonalDataMap = {
  // What to erase is sealed under the job's key (destroyed when it completes), not the addresses' own.
  UserDataDeletionRequested: (d: UserDataDeletionRequested['data']) => [
    ...itemsOf(d, 'emailAddresses', () => job(d.jobId)),
    ...itemsOf(d, 'accountIds', () => job(d.jobId)),
    ...fieldsOf(d, ['notificationEmail'], job(d.jobId)),
  ],
  // The confirmation is about its recipient (the merchant's privacy contact): erasable like any address.
  UserDataDeletionCompleted: (d: UserDataDeletionCompleted['data']) =>
    d.messages.flatMap((m, i) =>
      fieldsOf(m as unknown as Record<string, unknown>, ['to', 'subject', 'text'], emailSubject(d.merchantId, m.to), ['messages', i]),
    ),
};
