/**
 * Operations: liveness and readiness, Prometheus metrics, request ids and the access log, and
 * the graceful shutdown. `MetricsModule` is global so any feature can inject `Metrics` to add
 * its own series; `OperationsModule` is not, so its shutdown hook runs before the platform's.
 */
import { Global, Module } from '@nestjs/common';
import { GracefulShutdown } from './graceful-shutdown.js';
import { HealthController } from './health.controller.js';
import { Metrics } from '../platform/observability/metrics.js';
import { MetricsController } from './metrics.controller.js';
import { ProjectionLag } from './projection-lag.js';
import { Readiness } from './readiness.js';
import { RequestTelemetry } from '../platform/observability/request-telemetry.js';

@Global()
@Module({ providers: [Metrics], exports: [Metrics] })
export class MetricsModule {}

@Module({
  imports: [MetricsModule],
  controllers: [HealthController, MetricsController],
  providers: [RequestTelemetry, ProjectionLag, Readiness, GracefulShutdown],
  exports: [ProjectionLag],
})
export class OperationsModule {}
