import { Module } from '@nestjs/common';
import { couponCommandHandlers } from './commands/coupon-bank-commands.js';
import { AdminCouponBanksController, V2CouponsController } from './http/coupons.controllers.js';

@Module({ controllers: [AdminCouponBanksController, V2CouponsController], providers: [...couponCommandHandlers] })
export class CouponsModule {}
