/** The service: the platform, one module per feature, and the ports the composition root binds. */
import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AuditModule } from './audit/audit.module.js';
import { BrowserModule } from './browser/browser.module.js';
import { DemoShopModule } from './sandbox/demo/demo-shop.module.js';
import { CouponsModule } from './coupons/coupons.module.js';
import { CustomersModule } from './customers/customers.module.js';
import { EmailCapturesModule } from './email-captures/email-captures.module.js';
import { EmailOptOutsModule } from './email-opt-outs/email-opt-outs.module.js';
import { EmailModule } from './email/email.module.js';
import { MerchantsModule } from './merchants/merchants.module.js';
import { MetricsModule, OperationsModule } from './operations/operations.module.js';
import { PlatformModule, PlatformOptions } from './platform/platform.module.js';
import { SalesModule } from './sales/sales.module.js';
import { PortsModule } from './ports.module.js';
import { ReferralLinksModule } from './referral-links/referral-links.module.js';
import { SandboxHost } from './sandbox/sandbox-host.js';
import { SandboxModule } from './sandbox/sandbox.module.js';
import { SharesModule } from './shares/shares.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { WidgetsModule } from './widgets/widgets.module.js';

@Module({})
export class AppModule {
  static forRoot(platform: PlatformOptions, sandbox?: SandboxHost): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CqrsModule.forRoot(),
        PlatformModule.forRoot(platform),
        MetricsModule,
        OperationsModule,
        AuditModule,
        PortsModule,
        MerchantsModule,
        WidgetsModule,
        CustomersModule,
        CouponsModule,
        ReferralLinksModule,
        EmailModule,
        EmailOptOutsModule,
        SharesModule,
        EmailCapturesModule,
        BrowserModule,
        SalesModule,
        WebhooksModule,
        ...(sandbox ? [SandboxModule.forRoot(sandbox)] : []),
        // A sandbox generation also serves the demo shop (its pages run the embedded library on sample data).
        ...(platform.config.mountPath === '/sandbox' ? [DemoShopModule] : []),
      ],
    };
  }
}
