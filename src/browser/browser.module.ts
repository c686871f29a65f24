/** The browser-facing surface of the embedded library: publishable-key routes under /browser/v1 (a customer token too where they act for a customer), with CORS for allowed origins. */
import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers/index.js';
import { ReferralLinksModule } from '../referral-links/index.js';
import { WidgetsModule } from '../widgets/index.js';
import { EmailCapturesModule } from '../email-captures/index.js';
import { SalesModule } from '../sales/index.js';
import { SharesModule } from '../shares/index.js';
import { BrowserActionsController } from './http/browser-actions.controller.js';
import { BrowserAdmission } from './http/browser-admission.js';
import { BrowserController } from './http/browser.controller.js';
import { BrowserCustomerGuard } from './http/customer-token.guard.js';
import { LibraryController } from './http/library.controller.js';
import { PublishableKeyGuard } from './http/publishable-key.guard.js';

@Module({
  imports: [EmailCapturesModule, SharesModule, SalesModule, CustomersModule, WidgetsModule, ReferralLinksModule],
  controllers: [BrowserController, BrowserActionsController, LibraryController],
  providers: [BrowserAdmission, PublishableKeyGuard, BrowserCustomerGuard],
})
export class BrowserModule {}
