/** What other features may use of merchants (docs/architecture.md): nothing else of it is imported from outside. */
export { ChangeMerchantCommand, RegisterMerchantCommand, RevokeMerchantTokensCommand } from './commands/merchant-commands.js';
export { DEFAULT_MERCHANT_SETTINGS } from './domain/merchant.js';
export type { ShareMessagePolicy } from './domain/merchant.js';
export { CUSTOMER_TOKEN } from './http/token.schemas.js';
export { MerchantsModule } from './merchants.module.js';
export { MerchantDirectory } from './read-models/merchant-lookup.js';
export { allowedOriginsProjection, attributionDays, merchantsCollection, merchantsProjection, shareSettings } from './read-models/merchants.projection.js';
export type { MerchantDoc } from './read-models/merchants.projection.js';
