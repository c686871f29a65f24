import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers/index.js';
import { EmailModule } from '../email/index.js';
import { RequestUserDataDeletionHandler, UserDataDeletionProcessor } from './commands/user-data-deletion.js';
import { V1UserDataController, V2UserDataController } from './http/user-data.controller.js';
import { DeletionJobQueries } from './read-models/deletion-job-queries.js';

@Module({
  imports: [CustomersModule, EmailModule],
  controllers: [V1UserDataController, V2UserDataController],
  providers: [UserDataDeletionProcessor, RequestUserDataDeletionHandler, DeletionJobQueries],
  exports: [UserDataDeletionProcessor],
})
export class PrivacyModule {}
