// Live lease updates, read from Postgres (a light entry: no backends, so the web server's API
// can import it as @berth/sandbox/events).
export { LeaseEventFeed, leaseEventsChannel, sessionRoutesChannel } from "./leaseEventFeed.ts";
export type {
  LeaseEventFeedMode,
  LeaseEventFeedOptions,
  LeaseEventFeedSettings,
  LeaseFeedItem,
} from "./leaseEventFeed.ts";
export { readGroupFeed, readLeaseEvents } from "./leaseEventRows.ts";
export type {
  ArchiveTransfer,
  LeaseEventRecord,
  LeaseFeedRead,
  LeaseGenerations,
} from "./leaseEventRows.ts";
export { readSessionRoute } from "./sessionRouteRows.ts";
export type { SessionRoute } from "./sessionRouteRows.ts";
export {
  listenerApplicationName,
  NotificationListener,
  notifiesAcrossProcesses,
} from "./notificationListener.ts";
export type { ReconnectDelays } from "./notificationListener.ts";
