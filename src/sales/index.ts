/** What other features may use of sales (docs/architecture.md): nothing else of it is imported from outside. */
export { AttributeConversionCommand, RecordPurchaseCommand } from './commands/purchase-commands.js';
export type { ConversionAttributed } from './domain/conversion-events.js';
export { salesPersonalData } from './domain/personal-data.js';
export type { RewardApproved, RewardFacts, RewardManuallyApproved, RewardManuallyRejected, RewardRejected } from './domain/reward-events.js';
export { advocateLedgerStream } from './domain/reward.js';
export { CreatePurchaseDto } from './http/purchases.dto.js';
export { SaleRequests } from './http/sale-requests.js';
export { conversionsProjection } from './read-models/conversions.projection.js';
export { ConvertedRecipientsFromConversions } from './read-models/converted-recipients.js';
export { purchasesProjection } from './read-models/purchases.projection.js';
export { rewardValidationDueProjection } from './read-models/reward-validation-due.js';
export { rewardsProjection } from './read-models/rewards.projection.js';
export { SalesQueries } from './read-models/sales-queries.js';
export { SalesModule } from './sales.module.js';
