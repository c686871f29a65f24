import { Module } from '@nestjs/common';
import { OptOutJobProcessor, RemoveOptOutHandler, SubmitOptOutJobHandler } from './commands/opt-out-commands.js';
import { V1OptOutsController, V2OptOutsController } from './http/opt-outs.controller.js';

@Module({
  controllers: [V1OptOutsController, V2OptOutsController],
  providers: [OptOutJobProcessor, SubmitOptOutJobHandler, RemoveOptOutHandler],
  exports: [OptOutJobProcessor],
})
export class EmailOptOutsModule {}
