import { Module } from '@nestjs/common';
import { WidgetsModule } from '../widgets/index.js';
import { V1CustomerPresenter } from './http/v1-customer.presenter.js';
import { V1Embedding } from './http/v1-embeds.js';
import { CustomerQueries } from './read-models/customer-queries.js';
import { UpsertCustomerHandler } from './commands/upsert-customer.js';
import { V1CustomersController } from './http/v1-customers.controller.js';
import { V2CustomersController } from './http/v2-customers.controller.js';
import { V2CustomerTokensController } from './http/customer-tokens.controller.js';

@Module({
  imports: [WidgetsModule],
  controllers: [V1CustomersController, V2CustomersController, V2CustomerTokensController],
  providers: [UpsertCustomerHandler, CustomerQueries, V1CustomerPresenter, V1Embedding],
  exports: [CustomerQueries, V1CustomerPresenter, V1Embedding],
})
export class CustomersModule {}
