/**
 * Prometheus metrics of the service (prom-client): one Registry per application, so two
 * applications in one process (tests, sandbox generations) never share or clash, plus the
 * process's default metrics, collected once per process; HTTP request latency per route, and
 * helpers other features use to add their own (webhooks: queue depth, delivery outcomes).
 * Served at GET /metrics.
 *
 * Usage from any provider (the module is global):
 *
 *   constructor(metrics: Metrics) {
 *     this.sent = metrics.counter({ name: 'referral_webhook_deliveries_total', help: '…', labelNames: ['outcome'] });
 *   }
 *   this.sent.inc({ outcome: 'delivered' });
 *
 * The helpers are idempotent by name: asking twice for the same metric returns the first one.
 */
import { Injectable } from '@nestjs/common';
import {
  collectDefaultMetrics,
  Counter,
  type CounterConfiguration,
  Gauge,
  type GaugeConfiguration,
  Histogram,
  type HistogramConfiguration,
  type Metric,
  Registry,
} from 'prom-client';

/** Seconds; from a 2 ms cache hit to a 10 s read-your-writes wait. */
export const HTTP_LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The process's default metrics, in a registry of their own made once: collectDefaultMetrics
 * starts a process-wide GC observer that is never stopped and holds the registry it was given,
 * so one call per application kept every retired sandbox generation reachable.
 */
let processMetrics: Registry | undefined;

function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

@Injectable()
export class Metrics {
  readonly registry = new Registry();
  /** Latency per request; its `_count` series is the request rate. */
  readonly httpRequests: Histogram<'method' | 'route' | 'status'>;

  constructor() {
    processRegistry();
    this.httpRequests = this.histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status code: latency in seconds (the _count series is the request count)',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_LATENCY_BUCKETS,
    });
  }

  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
    return this.existing<Counter<L>>(config.name, Counter) ?? new Counter({ ...config, registers: [this.registry] });
  }

  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
    return this.existing<Gauge<L>>(config.name, Gauge) ?? new Gauge({ ...config, registers: [this.registry] });
  }

  histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> {
    return this.existing<Histogram<L>>(config.name, Histogram) ?? new Histogram({ ...config, registers: [this.registry] });
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    const both = Registry.merge([processRegistry(), this.registry]);
    return { contentType: both.contentType, body: await both.metrics() };
  }

  private existing<M>(name: string, kind: abstract new (...args: never[]) => Metric<string>): M | undefined {
    const metric = this.registry.getSingleMetric(name);
    if (metric === undefined) return undefined;
    if (!(metric instanceof kind)) throw new Error(`metric ${name} already exists as another kind`);
    return metric as M;
  }
}
