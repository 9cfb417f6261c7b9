import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { AuditService } from '../audit/service.js';
import { createDeliveryRepo } from './delivery-repo.js';
import { createEventsRepo } from './repo.js';
import { eventsRoutes } from './routes.js';
import { createEventsService, type EventsService } from './service.js';
import { createDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from './worker.js';

export interface EventsServices {
  events: EventsService;
  /** The worker `start()` runs; tests call `drainOnce()` / `drainAll()`. */
  worker: DeliveryWorker;
  /** Another worker on the same database (tests: tenant-scoped, short timeouts). */
  createWorker(options?: Partial<Omit<DeliveryWorkerOptions, 'db' | 'secrets' | 'disableEndpoint'>>): DeliveryWorker;
}

/** Outbound events: tenants' event endpoints, delivery of the outbox as Standard Webhooks, the pull stream. */
export function createEventsModule(platform: Platform, deps: { audit: AuditService }): BastionModule<EventsServices> {
  const { db, clock, secrets, config } = platform;
  // Read at call time: tests switch EVENTS_ALLOW_PRIVATE_URLS on the live config.
  const policy = () => ({ allowPrivate: config.eventsAllowPrivateUrls });
  const events = createEventsService({
    repo: createEventsRepo(db),
    deliveries: createDeliveryRepo(db),
    tx: platform.tx,
    clock,
    secrets,
    audit: deps.audit,
    policy,
  });
  const deliveries = createDeliveryRepo(db);
  platform.metrics.gauge(
    'bastion_event_backlog',
    'Outbound events waiting: deliveries not made yet, and outbox events not fanned out to endpoints yet',
    async () => {
      const backlog = await deliveries.backlog();
      return [
        { labels: { stage: 'delivery' }, value: backlog.deliveries },
        { labels: { stage: 'dispatch' }, value: backlog.undispatched },
      ];
    },
    ['stage'],
  );
  const outcomes = platform.metrics.counter('bastion_event_deliveries_total', 'Event delivery attempts by outcome (delivered, retry, failed: given up and the endpoint disabled, or a test event that failed)', ['outcome']);
  const createWorker: EventsServices['createWorker'] = (options = {}) =>
    createDeliveryWorker({
      clock,
      logger: platform.logger,
      policy,
      onOutcome: (outcome, count) => outcomes.inc({ outcome }, count),
      ...options,
      db,
      secrets,
      disableEndpoint: (tx, tenantId, endpointId, reason) => events.disableExhausted(tx, tenantId, endpointId, reason),
    });
  const worker = createWorker();
  return {
    name: 'events',
    services: { events, worker, createWorker },
    routes: { tenant: (scope) => eventsRoutes(scope, { events }) },
    start: () => worker.start(),
    stop: () => worker.stop(),
  };
}
