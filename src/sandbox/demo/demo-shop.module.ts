/** The demo shop, served by the sandbox's generations under /sandbox/demo. */
import { Module } from '@nestjs/common';
import { CustomersModule } from '../../customers/index.js';
import { ReferralLinksModule } from '../../referral-links/index.js';
import { WidgetsModule } from '../../widgets/index.js';
import { DemoShopController } from './demo-shop.controller.js';

@Module({ imports: [CustomersModule, WidgetsModule, ReferralLinksModule], controllers: [DemoShopController] })
export class DemoShopModule {}
