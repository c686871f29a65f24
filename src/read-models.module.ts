/** The query services over the read models, shared by every feature's controllers. */
import { Global, Module } from '@nestjs/common';
import { OptOutQueries } from './email-opt-outs/read-models/opt-out-queries.js';
import { ConvertedRecipients } from './shares/commands/share-commands.js';
import { ShareQueries } from './shares/read-models/share-queries.js';
import { SalesQueries } from './sales/read-models/sales-queries.js';
import { RewardValidationSettings } from './sales/commands/reward-evaluator.js';
import { CouponQueries } from './coupons/read-models/coupon-queries.js';
import { V1CustomerPresenter } from './customers/http/v1-customer.presenter.js';
import { V1Embedding } from './customers/http/v1-embeds.js';
import { CustomerActivity } from './customers/read-models/customer-activity.js';
import { CustomerQueries } from './customers/read-models/customer-queries.js';
import { MerchantDirectory } from './merchants/read-models/merchant-lookup.js';
import { MERCHANT_LOOKUP } from './platform/auth/principal.js';
import { LinkFactory } from './platform/http/links.factory.js';
import { ReferralLinkQueries } from './referral-links/read-models/referral-link-queries.js';
import { WidgetQueries } from './widgets/read-models/widget-queries.js';

const queries = [
  MerchantDirectory,
  CustomerQueries,
  CustomerActivity,
  WidgetQueries,
  ReferralLinkQueries,
  CouponQueries,
  LinkFactory,
  V1CustomerPresenter,
  V1Embedding,
  OptOutQueries,
  ShareQueries,
  ConvertedRecipients,
  SalesQueries,
  RewardValidationSettings,
];

@Global()
@Module({
  providers: [...queries, { provide: MERCHANT_LOOKUP, useExisting: MerchantDirectory }],
  exports: [...queries, MERCHANT_LOOKUP],
})
export class ReadModelsModule {}
