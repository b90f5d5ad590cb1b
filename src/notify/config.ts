import type { Env } from "../env";
import { pushRequestTimeoutMs } from "./provider-fetch";
import { endpointPolicy, type EndpointPolicy } from "./push-hosts";
import { isApnsTopic } from "./token-format";

/**
 * Which push providers this deployment has credentials for, read from its settings. A provider
 * without them is unconfigured: its devices are refused at registration (400), never accepted and
 * then silently dropped.
 */

export type NotifyEnv = Pick<
  Env,
  | "ENVIRONMENT"
  | "VAPID_PUBLIC_KEY"
  | "VAPID_PRIVATE_KEY"
  | "VAPID_SUBJECT"
  | "FCM_SERVICE_ACCOUNT"
  | "FCM_API_URL"
  | "FCM_BROADCAST_TOPIC"
  | "APNS_KEY_ID"
  | "APNS_TEAM_ID"
  | "APNS_PRIVATE_KEY"
  | "APNS_TOPIC"
  | "APNS_API_URL"
  | "WEBPUSH_ALLOWED_HOSTS"
  | "WEBPUSH_LOCAL_ORIGINS"
  | "PUSH_REQUEST_TIMEOUT_MS"
>;

/**
 * VAPID (RFC 8292): the key pair, base64url (public: 65-byte point; private: 32-byte scalar), and
 * the contact; and where endpoints may point (push-hosts.ts), checked at registration and again
 * before each send.
 */
export type WebPushConfig = { publicKey: string; privateKey: string; subject: string; endpoints: EndpointPolicy };

/** The fields of a Google service account key file FCM needs (the rest is ignored). */
export type FcmConfig = {
  projectId: string;
  clientEmail: string;
  privateKey: string;
  privateKeyId?: string;
  /** Where the signed assertion is exchanged for an access token (Google's, or a local stand-in's). */
  tokenUri: string;
  /** FCM's API origin; FCM_API_URL overrides it for a local stand-in. */
  apiUrl: string;
  /**
   * The topic every FCM device is subscribed to at registration (FCM_BROADCAST_TOPIC): a broadcast
   * with push is one send to it. Absent: no topic, broadcasts page FCM devices one by one.
   */
  broadcastTopic?: string;
};

export type ApnsConfig = {
  keyId: string;
  teamId: string;
  privateKey: string;
  /** Bundle ids devices may name as `topic` (APNS_TOPIC, comma-separated, each a bundle id); empty: any bundle id. */
  topics: readonly string[];
  /** APNS_API_URL, for a local stand-in: replaces both of Apple's hosts. */
  apiUrl?: string;
};

export type PushConfig = {
  webpush?: WebPushConfig;
  fcm?: FcmConfig;
  apns?: ApnsConfig;
  /** PUSH_REQUEST_TIMEOUT_MS: how long a provider request may take (provider-fetch.ts); absent: the default, 10 s. */
  requestTimeoutMs?: number;
};

export type ProviderName = "webpush" | "fcm" | "apns";

export const FCM_API_URL = "https://fcm.googleapis.com";
/** The broadcast topic when FCM_BROADCAST_TOPIC is not set at all (wrangler.toml sets it). */
export const DEFAULT_FCM_BROADCAST_TOPIC = "broadcasts";
/** FCM's rule for topic names. */
const FCM_TOPIC_NAME = /^[a-zA-Z0-9\-_.~%]{1,900}$/;

/** A setting that is present but unusable: a deployment mistake, answered 500 and logged, never a silent drop. */
export class PushConfigError extends Error {
  constructor(setting: string, problem: string) {
    super(`${setting} ${problem}`);
    this.name = "PushConfigError";
  }
}

const present = (value: string | undefined): value is string => typeof value === "string" && value.trim() !== "";

/** The configured providers of `env`. Throws PushConfigError when a provider is half or badly configured. */
export function pushConfig(env: NotifyEnv): PushConfig {
  const config: PushConfig = {};
  if (present(env.VAPID_PUBLIC_KEY) || present(env.VAPID_PRIVATE_KEY)) {
    if (!present(env.VAPID_PUBLIC_KEY) || !present(env.VAPID_PRIVATE_KEY)) throw new PushConfigError("VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY", "must be set together");
    const subject = env.VAPID_SUBJECT?.trim() ?? "";
    if (!/^(mailto:.+|https:\/\/.+)$/.test(subject)) throw new PushConfigError("VAPID_SUBJECT", "must be a mailto: or https: URL (RFC 8292 §2.1)");
    let endpoints: EndpointPolicy;
    try {
      endpoints = endpointPolicy(env);
    } catch (err) {
      throw new PushConfigError("WEBPUSH_ALLOWED_HOSTS/WEBPUSH_LOCAL_ORIGINS", `are not host lists: ${err instanceof Error ? err.message : String(err)}`);
    }
    config.webpush = { publicKey: env.VAPID_PUBLIC_KEY.trim(), privateKey: env.VAPID_PRIVATE_KEY.trim(), subject, endpoints };
  }
  if (present(env.FCM_SERVICE_ACCOUNT)) {
    let account: Record<string, unknown>;
    try {
      account = JSON.parse(env.FCM_SERVICE_ACCOUNT) as Record<string, unknown>;
    } catch {
      throw new PushConfigError("FCM_SERVICE_ACCOUNT", "is not JSON (paste the service account's key file)");
    }
    const field = (name: string) => {
      const value = account[name];
      if (typeof value !== "string" || value === "") throw new PushConfigError("FCM_SERVICE_ACCOUNT", `has no ${name}`);
      return value;
    };
    config.fcm = {
      projectId: field("project_id"),
      clientEmail: field("client_email"),
      privateKey: field("private_key"),
      privateKeyId: typeof account.private_key_id === "string" ? account.private_key_id : undefined,
      tokenUri: typeof account.token_uri === "string" && account.token_uri ? account.token_uri : "https://oauth2.googleapis.com/token",
      apiUrl: present(env.FCM_API_URL) ? env.FCM_API_URL.replace(/\/+$/, "") : FCM_API_URL,
    };
    const topic = (env.FCM_BROADCAST_TOPIC ?? DEFAULT_FCM_BROADCAST_TOPIC).trim();
    if (topic !== "") {
      if (!FCM_TOPIC_NAME.test(topic)) throw new PushConfigError("FCM_BROADCAST_TOPIC", "must be 1-900 of a-z A-Z 0-9 - _ . ~ % (FCM's topic names), or empty for none");
      config.fcm.broadcastTopic = topic;
    }
  }
  if (present(env.APNS_KEY_ID) || present(env.APNS_TEAM_ID) || present(env.APNS_PRIVATE_KEY)) {
    if (!present(env.APNS_KEY_ID) || !present(env.APNS_TEAM_ID) || !present(env.APNS_PRIVATE_KEY)) {
      throw new PushConfigError("APNS_KEY_ID/APNS_TEAM_ID/APNS_PRIVATE_KEY", "must be set together");
    }
    const topics = (env.APNS_TOPIC ?? "").split(",").map((t) => t.trim()).filter(Boolean);
    const notBundleId = topics.find((t) => !isApnsTopic(t));
    if (notBundleId !== undefined) throw new PushConfigError("APNS_TOPIC", `names "${notBundleId.slice(0, 40)}", not a bundle id (reverse-DNS, e.g. com.example.app)`);
    config.apns = {
      keyId: env.APNS_KEY_ID.trim(),
      teamId: env.APNS_TEAM_ID.trim(),
      privateKey: env.APNS_PRIVATE_KEY,
      topics,
      apiUrl: present(env.APNS_API_URL) ? env.APNS_API_URL.replace(/\/+$/, "") : undefined,
    };
  }
  if (present(env.PUSH_REQUEST_TIMEOUT_MS)) config.requestTimeoutMs = pushRequestTimeoutMs(env.PUSH_REQUEST_TIMEOUT_MS);
  return config;
}

/** Whether `kind`'s devices can be registered here (a device kind is its provider's name). */
export function isConfigured(config: PushConfig, kind: ProviderName): boolean {
  return config[kind] !== undefined;
}
