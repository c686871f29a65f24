/** The service: the platform, one module per feature, and the ports the composition root binds. */
import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AuditModule } from './audit/index.js';
import { BrowserModule } from './browser/index.js';
import { DemoShopModule, SandboxHost, SandboxModule } from './sandbox/index.js';
import { CouponsModule } from './coupons/index.js';
import { CustomersModule } from './customers/index.js';
import { EmailCapturesModule } from './email-captures/index.js';
import { EmailOptOutsModule } from './email-opt-outs/index.js';
import { EmailModule } from './email/index.js';
import { MerchantsModule } from './merchants/index.js';
import { MetricsModule, OperationsModule } from './operations/index.js';
import { PlatformModule, PlatformOptions } from './platform/platform.module.js';
import { SalesModule } from './sales/index.js';
import { PrivacyModule } from './privacy/index.js';
import { PortsModule } from './ports.module.js';
import { ReferralLinksModule } from './referral-links/index.js';
import { SharesModule } from './shares/index.js';
import { WebhooksModule } from './webhooks/index.js';
import { WidgetsModule } from './widgets/index.js';

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
        PrivacyModule,
        WebhooksModule,
        ...(sandbox ? [SandboxModule.forRoot(sandbox)] : []),
        // A sandbox generation also serves the demo shop (its pages run the embedded library on sample data).
        ...(platform.config.mountPath === '/sandbox' ? [DemoShopModule] : []),
      ],
    };
  }
}
