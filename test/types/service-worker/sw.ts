/**
 * The README's service worker, compiled as a service worker is (WebWorker library) by
 * test/node/client-types.test.ts: the real `ServiceWorkerGlobalScope`, `PushEvent` and
 * `NotificationEvent` fit the helper. Never executed.
 */
import { handleNotificationClick, handlePush, installPushHandlers } from "community-edge/client/service-worker";

declare const self: ServiceWorkerGlobalScope;

installPushHandlers(self, { defaultTitle: "Community", icon: "/icon-192.png" });

// Or the handlers one by one, beside listeners of your own.
self.addEventListener("push", (event) => handlePush(event, self));
self.addEventListener("notificationclick", (event) => handleNotificationClick(event, self));

// @ts-expect-error a fetch event is not a push
self.addEventListener("fetch", (event) => handlePush(event, self));
