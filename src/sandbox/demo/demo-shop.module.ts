/** The demo shop, served by the sandbox's generations under /sandbox/demo. */
import { Module } from '@nestjs/common';
import { DemoShopController } from './demo-shop.controller.js';

@Module({ controllers: [DemoShopController] })
export class DemoShopModule {}
