import { Module } from '@nestjs/common';
import { OptOutQueries } from './read-models/opt-out-queries.js';
import { OptOutJobProcessor, RemoveOptOutHandler, SubmitOptOutJobHandler } from './commands/opt-out-commands.js';
import { V1OptOutsController, V2OptOutsController } from './http/opt-outs.controller.js';

@Module({
  controllers: [V1OptOutsController, V2OptOutsController],
  providers: [OptOutJobProcessor, SubmitOptOutJobHandler, RemoveOptOutHandler, OptOutQueries],
  exports: [OptOutJobProcessor, OptOutQueries],
})
export class EmailOptOutsModule {}
