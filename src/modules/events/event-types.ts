/** The closed list of event types lives with the outbox; endpoint filters choose from it. */
export { EVENT_TYPES, type EventType } from '../../platform/events/outbox.js';
