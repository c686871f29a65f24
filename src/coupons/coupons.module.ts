import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers/index.js';
import { CouponQueries } from './read-models/coupon-queries.js';
import { CouponTurns, couponCommandHandlers } from './commands/coupon-bank-commands.js';
import { AdminCouponBanksController, V1CouponsController, V2CouponsController } from './http/coupons.controllers.js';

@Module({
  imports: [CustomersModule],
  controllers: [AdminCouponBanksController, V1CouponsController, V2CouponsController],
  providers: [...couponCommandHandlers, CouponQueries],
  exports: [CouponTurns, CouponQueries],
})
export class CouponsModule {}
