/**
 * What the local push services received, in one shape for all three: each push they answered
 * (delivered or refused), in arrival order, for tests to assert and the dev runner to print.
 */

export type PushServiceName = "webpush" | "fcm" | "apns";

export interface ReceivedPush {
  /** Position in the stack's record, from 1: `GET /received?after=` pages on it. */
  seq: number;
  service: PushServiceName;
  /** When it arrived (ms). */
  at: number;
  /** What the service answered: 2xx delivered, anything else refused. */
  status: number;
  /** The subscription (web-push-testing's client hash), FCM registration token or APNs device token; `/topics/{topic}` for an FCM topic send. */
  device: string;
  /** An FCM topic send: how many tokens were subscribed to the topic (FCM delivers to each). */
  reached?: number;
  /** The refusal's reason as the service sent it (`Unregistered`, `UNREGISTERED`, a VAPID error). */
  error?: string;
  /** The notification as the device would see it (Web Push: the decrypted payload). */
  title?: string;
  body?: string;
  badge?: number;
  /** The whole decrypted Web Push payload / FCM message / APNs payload. */
  payload?: unknown;
  /** APNs: the HTTP version the push came over (`2.0` as to Apple; `1.1` from local workerd). */
  httpVersion?: string;
  /** The request headers the service acts on (TTL, Urgency, Topic; apns-*). */
  headers?: Record<string, string | undefined>;
}

/** At most this many records are kept (the oldest go first): a dev stack runs for days. */
export const MAX_RECEIVED = 10_000;

export class ReceivedLog {
  private records: ReceivedPush[] = [];
  private nextSeq = 1;
  private listeners = new Set<(push: ReceivedPush) => void>();

  add(push: Omit<ReceivedPush, "seq" | "at"> & { at?: number }): ReceivedPush {
    const record: ReceivedPush = { ...push, seq: this.nextSeq++, at: push.at ?? Date.now() };
    this.records.push(record);
    if (this.records.length > MAX_RECEIVED) this.records.splice(0, this.records.length - MAX_RECEIVED);
    for (const listener of this.listeners) listener(record);
    return record;
  }

  /** Records after `seq` (all by default), oldest first, at most `limit`. */
  list({ after = 0, service, limit = 1_000 }: { after?: number; service?: PushServiceName; limit?: number } = {}): ReceivedPush[] {
    return this.records.filter((r) => r.seq > after && (!service || r.service === service)).slice(0, limit);
  }

  onReceived(listener: (push: ReceivedPush) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** One line for a developer: `[push] webpush device 3f2a… "New message" badge 3` (refusals say why). */
export function describePush(push: ReceivedPush): string {
  const device = push.device.length > 16 ? `${push.device.slice(0, 12)}…` : push.device;
  if (push.status >= 200 && push.status < 300) {
    const title = push.title === undefined ? "(badge only)" : JSON.stringify(push.title);
    if (push.reached !== undefined) return `[push] ${push.service} ${push.device} ${title} reached ${push.reached} device${push.reached === 1 ? "" : "s"}`;
    return `[push] ${push.service} device ${device} ${title} badge ${push.badge ?? "-"}`;
  }
  return `[push] ${push.service} device ${device} refused ${push.status}${push.error ? ` ${push.error}` : ""}`;
}
