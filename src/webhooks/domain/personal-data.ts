/** The personal values of webhook deliveries (issue 31): those of the payload each one sends (payload-personal-data.ts). */
import { PersonalDataMap } from '../../platform/personal-data/personal-fields.js';
import { payloadPersonalValues } from './payload-personal-data.js';
import { WebhookDeliveryScheduled } from './webhook-delivery.js';

export const webhookPersonalData: PersonalDataMap = {
  WebhookDeliveryScheduled: (d: WebhookDeliveryScheduled['data']) => payloadPersonalValues(d.merchantId, d.payload, ['payload']),
};
