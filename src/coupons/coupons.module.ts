import { Module } from '@nestjs/common';
import { CouponTurns, couponCommandHandlers } from './commands/coupon-bank-commands.js';
import { AdminCouponBanksController, V1CouponsController, V2CouponsController } from './http/coupons.controllers.js';

@Module({ controllers: [AdminCouponBanksController, V1CouponsController, V2CouponsController], providers: [...couponCommandHandlers], exports: [CouponTurns] })
export class CouponsModule {}
