/** The query services over the read models, shared by every feature's controllers. */
import { Global, Module } from '@nestjs/common';
import { CustomerActivity } from './customers/read-models/customer-activity.js';
import { CustomerQueries } from './customers/read-models/customer-queries.js';
import { MerchantDirectory } from './merchants/read-models/merchant-lookup.js';
import { MERCHANT_LOOKUP } from './platform/auth/principal.js';
import { WidgetQueries } from './widgets/read-models/widget-queries.js';

const queries = [MerchantDirectory, CustomerQueries, CustomerActivity, WidgetQueries];

@Global()
@Module({
  providers: [...queries, { provide: MERCHANT_LOOKUP, useExisting: MerchantDirectory }],
  exports: [...queries, MERCHANT_LOOKUP],
})
export class ReadModelsModule {}
