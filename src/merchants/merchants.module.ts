import { Global, Module } from '@nestjs/common';
import { MERCHANT_LOOKUP } from '../platform/auth/principal.js';
import { MerchantDirectory } from './read-models/merchant-lookup.js';
import { merchantCommandHandlers } from './commands/merchant-commands.js';
import { AdminMerchantsController } from './http/admin-merchants.controller.js';
import { V2TokensController } from './http/v2-tokens.controller.js';

/** Global: every guard looks merchants up (MERCHANT_LOOKUP), and most features read them. */
@Global()
@Module({
  controllers: [AdminMerchantsController, V2TokensController],
  providers: [...merchantCommandHandlers, MerchantDirectory, { provide: MERCHANT_LOOKUP, useExisting: MerchantDirectory }],
  exports: [MerchantDirectory, MERCHANT_LOOKUP],
})
export class MerchantsModule {}
