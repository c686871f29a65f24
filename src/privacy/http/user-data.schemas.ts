/** Response schema of an erasure job (not shown in the spec; docs/privacy.md), presented in user-data.controller.ts. */
import { bool, dateTime, int, nullable, object, oneOfStrings } from '../../platform/http/response-schemas.js';

export const USER_DATA_DELETION = object({
  id: int(),
  status: oneOfStrings(['processing', 'completed']),
  email_addresses_count: int('Distinct addresses submitted (compared lower-cased and trimmed)', { minimum: 0 }),
  customer_ids_count: int('Distinct customer ids submitted', { minimum: 0 }),
  account_ids_count: int('Distinct account ids submitted', { minimum: 0 }),
  notification_email_given: bool('Whether a confirmation goes to a notification address when the job completes (the address is not shown)'),
  customers_erased_count: nullable(int('Customer records erased (found by address, id or account id); null while processing', { minimum: 0 })),
  documents_scrubbed_count: nullable(int('Read-model records whose personal values were nulled; null until that step is done', { minimum: 0 })),
  created_at: dateTime(),
  erased_at: nullable(dateTime('When the read models were scrubbed; null until then')),
  completed_at: nullable(dateTime('null while processing')),
});
