import { AppError } from '../../platform/http/errors.js';
import type { OutboundRefusedError } from '../../platform/http/outbound.js';

export const MAX_ENDPOINTS_PER_TENANT = 20;

export const EventsErrors = {
  endpointNotFound: () => new AppError(404, 'EVENT_ENDPOINT_NOT_FOUND', 'Event endpoint not found'),
  endpointLimit: () =>
    new AppError(409, 'EVENT_ENDPOINT_LIMIT', `A tenant has at most ${MAX_ENDPOINTS_PER_TENANT} event endpoints`),
  /** A refused URL: EVENT_ENDPOINT_URL_INVALID | _SCHEME | _CREDENTIALS | _UNRESOLVABLE | _PRIVATE_ADDRESS. */
  urlRefused: (error: OutboundRefusedError) => new AppError(400, `EVENT_ENDPOINT_${error.reason}`, `body.url: ${error.message}`),
  replayRange: (message: string) => new AppError(400, 'EVENT_REPLAY_RANGE_INVALID', message),
  cursorUnknown: () => new AppError(400, 'EVENTS_CURSOR_UNKNOWN', 'query.after names no event of this tenant that has been dispatched'),
  endpointDisabled: () => new AppError(409, 'EVENT_ENDPOINT_DISABLED', 'The event endpoint is disabled: enable it first (PATCH with enabled: true)'),
  deliveryNotFound: () => new AppError(404, 'EVENT_DELIVERY_NOT_FOUND', 'The endpoint has no delivery of this event'),
  deliveryDelivered: () => new AppError(409, 'EVENT_DELIVERY_DELIVERED', 'The delivery was made already: replay the event to send it again'),
  deliveryInFlight: () => new AppError(409, 'EVENT_DELIVERY_IN_FLIGHT', 'An attempt of this delivery is in flight: read the log again when it ends'),
  emptyUpdate: () => new AppError(400, 'EVENT_ENDPOINT_UPDATE_EMPTY', 'The body changes nothing: give url, types, description or enabled'),
};
