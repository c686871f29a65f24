/** The demo shop, served by the sandbox's generations under /sandbox/demo. */
import { Module } from '@nestjs/common';
import { CustomersModule } from '../../customers/customers.module.js';
import { ReferralLinksModule } from '../../referral-links/referral-links.module.js';
import { WidgetsModule } from '../../widgets/widgets.module.js';
import { DemoShopController } from './demo-shop.controller.js';

@Module({ imports: [CustomersModule, WidgetsModule, ReferralLinksModule], controllers: [DemoShopController] })
export class DemoShopModule {}
