/** What other features may use of customers (docs/architecture.md): nothing else of it is imported from outside. */
export { UpsertCustomerCommand } from './commands/upsert-customer.js';
export { CustomersModule } from './customers.module.js';
export { customerPersonalData } from './domain/personal-data.js';
export { v1Sharer } from './http/customer.presenters.js';
export { V1_CUSTOMER_EXCERPT, V1_SHARER } from './http/customer.schemas.js';
export {
  EMAIL_RECIPIENTS,
  TRACKABLE_LINK,
  V1_REFERRAL_CODE_EXCERPT,
  V1_SHARE_EXCERPT,
  V1_SHARE_NETWORKS,
  v1ReferralCodeExcerptProperties,
} from './http/v1-activity.schemas.js';
export { V1CustomerPresenter } from './http/v1-customer.presenter.js';
export { V1_CUSTOMER } from './http/v1-customer.schemas.js';
export { V1Embedding, V1Embeds } from './http/v1-embeds.js';
export { RECENT_REFERRAL_CODES, RECENT_SHARES } from './read-models/customer-activity.js';
export type { RecentActivity } from './read-models/customer-activity.js';
export { CustomerQueries } from './read-models/customer-queries.js';
export { customersProjection } from './read-models/customers.projection.js';
export type { CustomerDoc } from './read-models/customers.projection.js';
