/**
 * Every feature's personal-data declarations (which values of its events are personal, and
 * whose), merged for the event store that encrypts them. src/operations/personal-data.spec.ts
 * holds every event type the service records to having a declaration or being declared free of
 * personal data.
 */
import { privacyPersonalData } from '../privacy/index.js';
import { PersonalDataMap } from '../platform/personal-data/personal-fields.js';

export const servicePersonalData: PersonalDataMap = { ...privacyPersonalData };
