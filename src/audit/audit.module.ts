/**
 * Audit and replay: the merchant-facing audit trail over the audit index (a read model of the
 * log per merchant and entity), and point-in-time reads for admins.
 */
import { Module } from '@nestjs/common';
import { AdminAsOfController } from './as-of.controller.js';
import { AuditQueries } from './audit-queries.js';
import { V2AuditController } from './audit.controller.js';
import { PointInTime } from './point-in-time.js';
import { PointInTimeRequests } from './point-in-time-requests.js';

@Module({ controllers: [V2AuditController, AdminAsOfController], providers: [AuditQueries, PointInTime, PointInTimeRequests] })
export class AuditModule {}
