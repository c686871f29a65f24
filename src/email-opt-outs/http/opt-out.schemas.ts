/** Response schemas of the email opt-out records (not shown in the spec; docs/api-decisions.md), presented in opt-outs.controller.ts. */
import { dateTime, int, nullable, object, oneOfStrings, str } from '../../platform/http/response-schemas.js';

export const OPT_OUT_JOB = object({
  id: int(),
  status: oneOfStrings(['processing', 'completed']),
  email_addresses_count: int('Distinct addresses submitted (compared lower-cased and trimmed: `A@x.com` and `a@x.com` are one)', { minimum: 1 }),
  opted_out_count: nullable(int('Addresses newly opted out; null while processing', { minimum: 0 })),
  already_opted_out_count: nullable(int('Addresses that were opted out already; null while processing', { minimum: 0 })),
  created_at: dateTime(),
  completed_at: nullable(dateTime('null while processing')),
});

export const OPT_OUT = object({
  email_address: str('The opted-out address, lower-cased and trimmed'),
  job_id: nullable(int('The job that opted it out')),
  created_at: dateTime(),
});
