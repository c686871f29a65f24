/**
 * Every feature's personal-data declarations (which values of its events are personal, and
 * whose), merged for the event store that encrypts them. src/operations/personal-data.spec.ts
 * holds every event type the service records to having a declaration or being declared free of
 * personal data.
 */
import { privacyPersonalData } from '../privacy/index.js';
import { customerPersonalData } from '../customers/index.js';
import { emailCapturePersonalData } from '../email-captures/index.js';
import { emailOptOutPersonalData } from '../email-opt-outs/index.js';
import { emailPersonalData } from '../email/index.js';
import { PersonalDataMap } from '../platform/personal-data/personal-fields.js';
import { referralLinkPersonalData } from '../referral-links/index.js';
import { salesPersonalData } from '../sales/index.js';
import { sharePersonalData } from '../shares/index.js';
import { webhookPersonalData } from '../webhooks/index.js';

const features: readonly PersonalDataMap[] = [
  customerPersonalData,
  emailCapturePersonalData,
  emailOptOutPersonalData,
  emailPersonalData,
  referralLinkPersonalData,
  salesPersonalData,
  sharePersonalData,
  webhookPersonalData,
  privacyPersonalData,
];

/** Each event type is recorded by one feature: a type declared twice is a mistake, refused at start. */
function merged(maps: readonly PersonalDataMap[]): PersonalDataMap {
  const out: Record<string, PersonalDataMap[string]> = {};
  for (const map of maps) {
    for (const [type, fields] of Object.entries(map)) {
      if (out[type]) throw new Error(`personal data of ${type} declared twice`);
      out[type] = fields;
    }
  }
  return out;
}

export const servicePersonalData: PersonalDataMap = merged(features);
