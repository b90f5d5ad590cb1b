import type { WebPushPayload } from "../lib/wire/web-push";
import { base64UrlDecode, base64UrlEncode } from "../lib/base64url";
import type { WebPushConfig } from "./config";
import type { WebPushDevice } from "./devices";
import { importP256PrivateKey, ReusedToken, signJwt } from "./jwt";
import { PUSH_TTL_SECONDS, type PushMessage, type PushProvider, type PushRequest } from "./message";

/**
 * Web Push on WebCrypto: RFC 8291 message encryption (`aes128gcm`, RFC 8188), RFC 8292 VAPID and
 * the RFC 8030 request. Written here rather than taken from `@block65/webcrypto-web-push` 2.0.0
 * (read as published): it draws salt and sender key inside `encryptNotification`, so RFC 8291's
 * test vector cannot be checked through it; it refuses `http:` endpoints, which the local push
 * service of development uses; it signs a VAPID JWT per push; it pads every message to the full
 * 4 KB by default; and it declares Node ≥ 22. What it would save is these ~150 lines, checked
 * against the RFC's vector byte for byte (test/notify/webpush.test.ts).
 */

/** The record size written in the header: one record holds the whole message. */
const RECORD_SIZE = 4096;
/** Push services must accept 4,096 bytes of body (RFC 8030 §7.2): header 86 + tag 16 + delimiter 1. */
export const MAX_WEBPUSH_PLAINTEXT = RECORD_SIZE - 86 - 16 - 1;
/** RFC 8030 §5.4: a Topic is at most 32 characters of the base64url alphabet. */
const TOPIC_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
/** RFC 8292 §2: exp at most 24 h ahead. 12 h, and a token is reused for its first 6 h. */
const VAPID_TOKEN_SECONDS = 12 * 60 * 60;
const VAPID_REUSE_MS = 6 * 60 * 60 * 1000;

const utf8 = new TextEncoder();

/** The sender's side of one encryption; random in production, fixed only by the RFC vector test. */
export type EncryptionSeed = { salt: Uint8Array; senderPrivateKey: CryptoKey; senderPublicKey: Uint8Array };

/**
 * RFC 8291 §3–4: `plaintext` encrypted for the subscription whose keys are `p256dh` (the browser's
 * 65-byte P-256 point) and `auth` (16 bytes), as the body of one push. Single record, no padding
 * beyond the delimiter.
 */
export async function encryptAes128gcm(plaintext: Uint8Array, p256dh: Uint8Array, auth: Uint8Array, seed?: EncryptionSeed): Promise<Uint8Array> {
  if (plaintext.length > MAX_WEBPUSH_PLAINTEXT) throw new Error(`Web Push payload over ${MAX_WEBPUSH_PLAINTEXT} bytes`);
  const { salt, senderPrivateKey, senderPublicKey } = seed ?? (await newSeed());
  const receiverKey = await crypto.subtle.importKey("raw", p256dh, { name: "ECDH", namedCurve: "P-256" }, false, []);
  const sharedSecret = new Uint8Array(await crypto.subtle.deriveBits(ecdhWith(receiverKey), senderPrivateKey, 256));

  // §3.3–3.4: IKM = HKDF(auth, ecdh_secret, "WebPush: info" ‖ 0 ‖ ua_public ‖ as_public, 32).
  const prkKey = await hmac(auth, sharedSecret);
  const ikm = await hmac(prkKey, concat(utf8.encode("WebPush: info\0"), p256dh, senderPublicKey, [1]));
  // RFC 8188 §2.2–2.3: CEK and nonce from the salt.
  const prk = await hmac(salt, ikm);
  const cek = (await hmac(prk, concat(utf8.encode("Content-Encoding: aes128gcm\0"), [1]))).slice(0, 16);
  const nonce = (await hmac(prk, concat(utf8.encode("Content-Encoding: nonce\0"), [1]))).slice(0, 12);

  const key = await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["encrypt"]);
  // The last (and only) record ends with delimiter 0x02.
  const ciphertext = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce }, key, concat(plaintext, [2])));
  const header = new Uint8Array(21);
  header.set(salt, 0);
  new DataView(header.buffer).setUint32(16, RECORD_SIZE);
  header[20] = senderPublicKey.length;
  return concat(header, senderPublicKey, ciphertext);
}

/** ECDH parameters; workers-types spells the `public` member `$public`, the runtime takes `public` (the WebCrypto name). */
function ecdhWith(publicKey: CryptoKey): SubtleCryptoDeriveKeyAlgorithm {
  return { name: "ECDH", public: publicKey } as unknown as SubtleCryptoDeriveKeyAlgorithm;
}

async function newSeed(): Promise<EncryptionSeed> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])) as CryptoKeyPair;
  const senderPublicKey = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
  return { salt: crypto.getRandomValues(new Uint8Array(16)), senderPrivateKey: pair.privateKey, senderPublicKey };
}

async function hmac(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", imported, data));
}

function concat(...parts: (Uint8Array | number[])[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Per isolate, per push service origin: one VAPID signature every 6 h, not one per push. */
const vapidTokens = new Map<string, ReusedToken<{ token: string }>>();

/**
 * RFC 8292 §3: `Authorization: vapid t=<JWT>, k=<public key>`; the JWT's `aud` is the endpoint's
 * origin, `exp` 12 h ahead (≤ 24 h), `sub` the deployment's contact (VAPID_SUBJECT).
 */
export async function vapidAuthorization(endpoint: string, vapid: WebPushConfig, now: number = Date.now()): Promise<string> {
  const audience = new URL(endpoint).origin;
  const cacheKey = `${vapid.publicKey} ${audience}`;
  let reused = vapidTokens.get(cacheKey);
  if (!reused) {
    if (vapidTokens.size >= 1000) vapidTokens.clear(); // a handful of push services exist; bound it anyway
    reused = new ReusedToken(async (issuedAt) => {
      const key = await importP256PrivateKey(vapid.publicKey, vapid.privateKey, "sign");
      const exp = Math.floor(issuedAt / 1000) + VAPID_TOKEN_SECONDS;
      return { token: await signJwt("ES256", key, { aud: audience, exp, sub: vapid.subject }) };
    }, (_token, ageMs) => ageMs < VAPID_REUSE_MS);
    vapidTokens.set(cacheKey, reused);
  }
  const { token } = await reused.get(now);
  return `vapid t=${token}, k=${vapid.publicKey}`;
}

/**
 * The RFC 8030 `Topic` for a thread: the thread itself when it already is ≤ 32 base64url
 * characters, else the first 32 characters of its SHA-256 (still one topic per thread).
 */
export async function webPushTopic(thread: string): Promise<string> {
  if (TOPIC_PATTERN.test(thread)) return thread;
  return base64UrlEncode(await crypto.subtle.digest("SHA-256", utf8.encode(thread))).slice(0, 32);
}

/**
 * What the service worker receives (decrypted): it shows `title`/`body` with `tag` = thread, opens
 * `url` on click and calls `setAppBadge(badge)`. Typed by the client's service worker, which reads it.
 */
export function webPushPayload(message: PushMessage): WebPushPayload {
  return {
    title: message.title,
    body: message.body,
    url: message.url,
    tag: message.thread,
    badge: message.badge,
    ...(message.data ? { data: message.data } : {}),
  };
}

export function webPushProvider(config: WebPushConfig): PushProvider<"webpush"> {
  return {
    kind: "webpush",
    async request(device: WebPushDevice, message: PushMessage, now: number = Date.now()): Promise<PushRequest> {
      if (message.type !== "alert") throw new Error("Web Push has no badge-only push: browsers penalise silent pushes");
      const body = await encryptAes128gcm(utf8.encode(JSON.stringify(webPushPayload(message))), base64UrlDecode(device.keys.p256dh), base64UrlDecode(device.keys.auth));
      const headers: Record<string, string> = {
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        TTL: String(message.ttlSeconds ?? PUSH_TTL_SECONDS),
        Urgency: message.urgency,
        Authorization: await vapidAuthorization(device.endpoint, config, now),
      };
      if (message.thread) headers.Topic = await webPushTopic(message.thread);
      return { url: device.endpoint, method: "POST", headers, body };
    },
  };
}
