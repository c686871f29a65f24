import { Module } from '@nestjs/common';
import { merchantCommandHandlers } from './commands/merchant-commands.js';
import { AdminMerchantsController } from './http/admin-merchants.controller.js';
import { V2TokensController } from './http/v2-tokens.controller.js';

@Module({ controllers: [AdminMerchantsController, V2TokensController], providers: [...merchantCommandHandlers] })
export class MerchantsModule {}
