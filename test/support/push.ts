/**
 * Push provider credentials for tests, generated once per run inside workerd (never real ones), as
 * the env overrides a deployment's settings would be, and the receiving side of Web Push (what a
 * browser does with a push) to check what was sent.
 */
import type { Env } from "../../src/env";
import { base64UrlDecode, base64UrlEncode } from "../../src/lib/base64url";

export type PushTestKeys = {
  env: Partial<Env>;
  /** VAPID public key as a verify key. */
  vapidVerifyKey: CryptoKey;
  /** The service account's public key (RS256 verify). */
  fcmVerifyKey: CryptoKey;
  /** The APNs key's public half (ES256 verify). */
  apnsVerifyKey: CryptoKey;
};

let generated: Promise<PushTestKeys> | undefined;

/** One set of keys for the whole test run: providers cache tokens per key, as an isolate does. */
export function pushTestKeys(): Promise<PushTestKeys> {
  generated ??= generate();
  return generated;
}

function pem(der: ArrayBuffer): string {
  const b64 = btoa(String.fromCharCode(...new Uint8Array(der)));
  return `-----BEGIN PRIVATE KEY-----\n${b64.match(/.{1,64}/g)!.join("\n")}\n-----END PRIVATE KEY-----\n`;
}

async function generate(): Promise<PushTestKeys> {
  const ec = { name: "ECDSA", namedCurve: "P-256" };
  const vapid = (await crypto.subtle.generateKey(ec, true, ["sign", "verify"])) as CryptoKeyPair;
  const vapidPublic = base64UrlEncode((await crypto.subtle.exportKey("raw", vapid.publicKey)) as ArrayBuffer);
  const vapidPrivate = ((await crypto.subtle.exportKey("jwk", vapid.privateKey)) as JsonWebKey).d!;

  const rsa = (await crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const serviceAccount = {
    type: "service_account",
    project_id: "community-test",
    private_key_id: "test-key-1",
    private_key: pem((await crypto.subtle.exportKey("pkcs8", rsa.privateKey)) as ArrayBuffer),
    client_email: `push-${crypto.randomUUID().slice(0, 8)}@community-test.iam.gserviceaccount.com`,
    token_uri: "http://127.0.0.1:9/token",
  };

  const apns = (await crypto.subtle.generateKey(ec, true, ["sign", "verify"])) as CryptoKeyPair;
  return {
    env: {
      VAPID_PUBLIC_KEY: vapidPublic,
      VAPID_PRIVATE_KEY: vapidPrivate,
      VAPID_SUBJECT: "mailto:push@example.com",
      FCM_SERVICE_ACCOUNT: JSON.stringify(serviceAccount),
      APNS_KEY_ID: "ABC123DEFG",
      APNS_TEAM_ID: "TEAM123456",
      APNS_PRIVATE_KEY: pem((await crypto.subtle.exportKey("pkcs8", apns.privateKey)) as ArrayBuffer),
      APNS_TOPIC: "",
    },
    vapidVerifyKey: vapid.publicKey,
    fcmVerifyKey: rsa.publicKey,
    apnsVerifyKey: apns.publicKey,
  };
}

/** A browser's push subscription keys: the P-256 pair and the 16-byte auth secret. */
export async function newSubscriptionKeys(): Promise<{ p256dh: string; auth: string; privateKey: CryptoKey }> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])) as CryptoKeyPair;
  return {
    p256dh: base64UrlEncode((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer),
    auth: base64UrlEncode(crypto.getRandomValues(new Uint8Array(16))),
    privateKey: pair.privateKey,
  };
}

async function hmac(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", imported, data));
}

const cat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
};

/**
 * The browser's side of RFC 8291, written from the RFC apart from the sending code: decrypts an
 * `aes128gcm` body with the subscription's private key and auth secret.
 */
export async function decryptPush(body: Uint8Array, receiver: { p256dh: string; auth: string; privateKey: CryptoKey }): Promise<string> {
  const salt = body.slice(0, 16);
  const idLength = body[20]!;
  const senderPublic = body.slice(21, 21 + idLength);
  const ciphertext = body.slice(21 + idLength);
  const senderKey = await crypto.subtle.importKey("raw", senderPublic, { name: "ECDH", namedCurve: "P-256" }, false, []);
  const shared = new Uint8Array(await crypto.subtle.deriveBits({ name: "ECDH", public: senderKey } as unknown as SubtleCryptoDeriveKeyAlgorithm, receiver.privateKey, 256));
  const text = new TextEncoder();
  const ikm = await hmac(await hmac(base64UrlDecode(receiver.auth), shared), cat(text.encode("WebPush: info\0"), base64UrlDecode(receiver.p256dh), senderPublic, new Uint8Array([1])));
  const prk = await hmac(salt, ikm);
  const cek = (await hmac(prk, cat(text.encode("Content-Encoding: aes128gcm\0"), new Uint8Array([1])))).slice(0, 16);
  const nonce = (await hmac(prk, cat(text.encode("Content-Encoding: nonce\0"), new Uint8Array([1])))).slice(0, 12);
  const key = await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["decrypt"]);
  const padded = new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce }, key, ciphertext));
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("not a last record");
  return new TextDecoder().decode(padded.slice(0, end));
}

/** The header and claims of a compact JWS, and whether `key` verifies its signature. */
export async function readJwt(token: string, key: CryptoKey, alg: "ES256" | "RS256"): Promise<{ header: Record<string, unknown>; claims: Record<string, unknown>; valid: boolean }> {
  const [head, body, signature] = token.split(".") as [string, string, string];
  const json = (part: string) => JSON.parse(new TextDecoder().decode(base64UrlDecode(part))) as Record<string, unknown>;
  const params = alg === "ES256" ? { name: "ECDSA", hash: "SHA-256" } : { name: "RSASSA-PKCS1-v1_5" };
  const valid = await crypto.subtle.verify(params, key, base64UrlDecode(signature), new TextEncoder().encode(`${head}.${body}`));
  return { header: json(head), claims: json(body), valid };
}

/**
 * An FCM registration token of the shape the Firebase SDKs hand out (`<instance id>:APA91b…`,
 * 152 characters of A-Z a-z 0-9 _ : -): the same for the same `label` (A-Z a-z 0-9 _ -, ≤ 60).
 */
export function fcmToken(label: string = crypto.randomUUID()): string {
  const head = `${label.replace(/[^A-Za-z0-9_-]/g, "_")}:APA91b`;
  return head + "Qx7_kZ2-wN9v".repeat(13).slice(0, 152 - head.length);
}
