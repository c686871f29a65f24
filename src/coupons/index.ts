/** What other features may use of coupons (docs/architecture.md): nothing else of it is imported from outside. */
export { CouponTurns, CreateCouponBankCommand } from './commands/coupon-bank-commands.js';
export { CouponsModule } from './coupons.module.js';
export type { CouponAssociated } from './domain/coupon-association.js';
export { couponBankDecider, couponBankStream } from './domain/coupon-bank.js';
export type { CouponAssigned, CouponBankCommand } from './domain/coupon-bank.js';
export { CouponQueries } from './read-models/coupon-queries.js';
export { couponBanksProjection, couponsProjection } from './read-models/coupons.projection.js';
