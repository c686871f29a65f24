import { Module } from '@nestjs/common';
import { UpsertCustomerHandler } from './commands/upsert-customer.js';
import { V1CustomersController } from './http/v1-customers.controller.js';
import { V2CustomersController } from './http/v2-customers.controller.js';
import { V2CustomerTokensController } from './http/customer-tokens.controller.js';

@Module({ controllers: [V1CustomersController, V2CustomersController, V2CustomerTokensController], providers: [UpsertCustomerHandler] })
export class CustomersModule {}
