/** Every read model the service keeps, in one place: the runner feeds each of them. */
import { couponBanksProjection, couponsProjection } from './coupons/read-models/coupons.projection.js';
import { emailCapturesProjection } from './email-captures/read-models/email-captures.projection.js';
import { outboxProjection } from './email/read-models/outbox.projection.js';
import { optOutJobsProjection, optOutsProjection } from './email-opt-outs/read-models/opt-outs.projection.js';
import { reminderEmailsProjection, sharesProjection } from './shares/read-models/shares.projection.js';
import { remindersDueProjection, shareEmailsDueProjection } from './shares/read-models/share-queues.js';
import { conversionsProjection } from './sales/read-models/conversions.projection.js';
import { purchasesProjection } from './sales/read-models/purchases.projection.js';
import { rewardsProjection } from './sales/read-models/rewards.projection.js';
import { rewardValidationDueProjection } from './sales/read-models/reward-validation-due.js';
import { customersProjection } from './customers/read-models/customers.projection.js';
import { allowedOriginsProjection, merchantsProjection } from './merchants/read-models/merchants.projection.js';
import { Projection } from './platform/projections/projection.js';
import { referralLinksProjection } from './referral-links/read-models/referral-links.projection.js';
import { integrationSettingsProjection } from './integrations/read-models/integration-settings.projection.js';
import { dueDeliveriesProjection, webhookDeliveriesProjection } from './webhooks/read-models/webhook-deliveries.projection.js';
import { webhookEndpointsProjection } from './webhooks/read-models/webhook-endpoints.projection.js';
import { widgetsProjection } from './widgets/read-models/widgets.projection.js';

export const allProjections: Projection[] = [
  merchantsProjection,
  allowedOriginsProjection,
  widgetsProjection,
  customersProjection,
  referralLinksProjection,
  couponsProjection,
  couponBanksProjection,
  optOutsProjection,
  optOutJobsProjection,
  sharesProjection,
  reminderEmailsProjection,
  shareEmailsDueProjection,
  remindersDueProjection,
  outboxProjection,
  emailCapturesProjection,
  purchasesProjection,
  conversionsProjection,
  rewardsProjection,
  rewardValidationDueProjection,
  webhookEndpointsProjection,
  integrationSettingsProjection,
  webhookDeliveriesProjection,
  dueDeliveriesProjection,
];
