/** Every read model the service keeps, in one place: the runner feeds each of them. */
import { couponBanksProjection, couponsProjection } from './coupons/index.js';
import { emailCapturesProjection } from './email-captures/index.js';
import { outboxProjection } from './email/index.js';
import { optOutJobsProjection, optOutsProjection } from './email-opt-outs/index.js';
import { reminderEmailsProjection, sharesProjection, remindersDueProjection, shareEmailsDueProjection } from './shares/index.js';
import { conversionsProjection, purchasesProjection, rewardsProjection, rewardValidationDueProjection } from './sales/index.js';
import { customersProjection } from './customers/index.js';
import { allowedOriginsProjection, merchantsProjection } from './merchants/index.js';
import { collectionsOf, Projection } from './platform/projections/projection.js';
import { erasureProjections } from './platform/personal-data/read-model-erasure.js';
import { CollectionDef } from './platform/read-store/read-store.js';
import { referralLinksProjection } from './referral-links/index.js';
import { integrationSettingsProjection } from './integrations/index.js';
import { dueDeliveriesProjection, webhookDeliveriesProjection, webhookEndpointsProjection } from './webhooks/index.js';
import { widgetsProjection } from './widgets/index.js';
import { deletionJobsProjection } from './privacy/index.js';

const featureProjections: Projection[] = [
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
  deletionJobsProjection,
];

/** The collections that declare personal values (CollectionDef.personal): what erasing a person reaches (planErasure). */
export const personalCollections: CollectionDef[] = collectionsOf(featureProjections).filter((c) => c.personal !== undefined);

export const allProjections: Projection[] = [...featureProjections, ...erasureProjections(personalCollections)];
