/**
 * Push provider credentials for `npm run dev`: a VAPID key pair, an FCM service account and an
 * APNs auth key, generated on first use and kept in `<data dir>/dev-push-keys.json` (under .data/,
 * git-ignored: never committed, never deployed). They let every kind of device register locally;
 * Google and Apple know nothing of them, so only local push services accept what they sign.
 * `.dev.vars` entries of the same names win (a developer's own VAPID keys, say).
 */
import { webcrypto } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export type DevPushVars = {
  VAPID_PUBLIC_KEY: string;
  VAPID_PRIVATE_KEY: string;
  VAPID_SUBJECT: string;
  FCM_SERVICE_ACCOUNT: string;
  APNS_KEY_ID: string;
  APNS_TEAM_ID: string;
  APNS_PRIVATE_KEY: string;
  /** Bundle ids devices may register with (comma-separated; absent: any). */
  APNS_TOPIC?: string;
};

export const devPushKeysPath = (dataDir: string) => join(dataDir, "dev-push-keys.json");

function pem(der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString("base64");
  return `-----BEGIN PRIVATE KEY-----\n${b64.match(/.{1,64}/g)!.join("\n")}\n-----END PRIVATE KEY-----\n`;
}

/** The dev push settings, generated (once) when the file is missing. */
export async function devPushVars(dataDir: string): Promise<DevPushVars> {
  const path = devPushKeysPath(dataDir);
  if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8")) as DevPushVars;
  const vars = await generatePushVars();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(vars, null, 2), { mode: 0o600 });
  return vars;
}

/** A fresh set of push credentials for all three providers (dev keeps one; tests make one per run). */
export async function generatePushVars(): Promise<DevPushVars> {
  const { subtle } = webcrypto;
  const ec = { name: "ECDSA", namedCurve: "P-256" };
  const vapid = (await subtle.generateKey(ec, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const rsa = (await subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const apns = (await subtle.generateKey(ec, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const vars: DevPushVars = {
    VAPID_PUBLIC_KEY: Buffer.from(await subtle.exportKey("raw", vapid.publicKey)).toString("base64url"),
    VAPID_PRIVATE_KEY: (await subtle.exportKey("jwk", vapid.privateKey)).d!,
    VAPID_SUBJECT: "mailto:dev@localhost.invalid",
    FCM_SERVICE_ACCOUNT: JSON.stringify({
      type: "service_account",
      project_id: "community-edge-dev",
      private_key_id: "dev",
      private_key: pem(await subtle.exportKey("pkcs8", rsa.privateKey)),
      client_email: "push@community-edge-dev.iam.gserviceaccount.com",
      // Replaced by the local FCM stand-in's token endpoint when the stack starts (scripts/stack/push).
      token_uri: "http://127.0.0.1:9/token",
    }),
    APNS_KEY_ID: "DEVKEY0001",
    APNS_TEAM_ID: "DEVTEAM001",
    // One line (`\n` escaped, as secrets often arrive): it travels as a `--var` argument.
    APNS_PRIVATE_KEY: pem(await subtle.exportKey("pkcs8", apns.privateKey)).replace(/\n/g, "\\n"),
  };
  return vars;
}
