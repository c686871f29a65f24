/**
 * Audit and replay: the merchant-facing audit trail over the audit index (the log per merchant
 * and entity: in a SQLite file beside the log on the embedded store, a read model otherwise; see
 * audit-storage.ts), and point-in-time reads for admins.
 */
import { Module } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '../platform/event-store/event-store.js';
import { READ_STORE, type ReadStore } from '../platform/read-store/read-store.js';
import { AdminAsOfController } from './as-of.controller.js';
import { AUDIT_INDEX } from './audit-index.js';
import { createAuditIndex } from './audit-storage.js';
import { V2AuditController } from './audit.controller.js';
import { PointInTime } from './point-in-time.js';
import { PointInTimeRequests } from './point-in-time-requests.js';

@Module({
  controllers: [V2AuditController, AdminAsOfController],
  providers: [
    {
      provide: AUDIT_INDEX,
      useFactory: (events: EventStore, reads: ReadStore) => createAuditIndex(events, reads),
      inject: [EVENT_STORE, READ_STORE],
    },
    PointInTime,
    PointInTimeRequests,
  ],
})
export class AuditModule {}
