import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { pushConfig, PushConfigError } from "../../src/notify/config";
import { setBroadcastTopic } from "../../src/notify/topic";
import { isApnsTopic, isFcmToken } from "../../src/notify/token-format";
import { api, newId, show } from "../support/api";
import { fcmToken, pushTestKeys } from "../support/push";
import { fcmTopicCalls, fcmTopicSubscribers, stackPushEnv } from "../support/push-services";

/**
 * The shapes of what reaches a provider's URL or header: an APNs `topic` (the `apns-topic` header)
 * must be a bundle id even where APNS_TOPIC lets any app register; an FCM token that is no token
 * never becomes a path segment of the topic subscription call.
 */

let env: Partial<Env>;
beforeAll(async () => {
  env = (await pushTestKeys()).env;
});

const apnsToken = () => [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");
const putApns = (userId: string, topic: string, overrides: Partial<Env> = {}) =>
  api("PUT", "/v1/me/devices/iphone", { as: { userId }, env: { ...env, APNS_TOPIC: "", ...overrides }, body: { kind: "apns", token: apnsToken(), environment: "production", topic } });

describe("an APNs device's topic", () => {
  it("with APNS_TOPIC empty (any app), must still be a bundle id: a 400 naming topic otherwise, nothing registered", async () => {
    const me = newId();
    for (const topic of ["community", "com.example.app\r\nx-injected: 1", "com.example app", "com..example", ".com.example", "com.example.", "com/example.app", `com.${"a".repeat(252)}`, "com.example.app:443"]) {
      const res = await putApns(me, topic);
      expect(res.status, `${JSON.stringify(topic)}: ${show(res)}`).toBe(400);
      expect(res.body.error.details, topic).toEqual([expect.objectContaining({ field: "topic" })]);
    }
    const none = await api("GET", "/v1/me/devices", { as: { userId: me }, env });
    expect(none.body.items).toEqual([]);
    for (const topic of ["com.example.community", "com.example.app.voip", "com.example.app.complication", "io.my-company.App2", `com.${"a".repeat(251)}`]) {
      const res = await putApns(me, topic);
      expect(res.status, `${topic}: ${show(res)}`).toBe(200);
    }
  });

  it("APNS_TOPIC naming something that is not a bundle id is a configuration error", () => {
    const keys = { ...stackPushEnv(), ...env } as Env;
    expect(() => pushConfig({ ...keys, APNS_TOPIC: "com.example.app, not a bundle" })).toThrow(PushConfigError);
    expect(() => pushConfig({ ...keys, APNS_TOPIC: "single" })).toThrow(/APNS_TOPIC/);
    expect(pushConfig({ ...keys, APNS_TOPIC: "com.example.app, com.example.app.beta" }).apns?.topics).toEqual(["com.example.app", "com.example.app.beta"]);
  });
});

describe("FCM tokens and the broadcast topic", () => {
  it("the format: 100–1024 base64url characters and ':', nothing that changes a URL", () => {
    const real = "fMz3Jq0wR6yQhQq8Wb4xcT:APA91bE7kqkWlX7mZc0yq3nS5cG2mJ8vK1dR4tY6uI9oP0aS3dF5gH7jK9lZ1xC3vB5nM7qW9eR1tY3uI5oP7aS9dF1gH3jK5lZ7xC9vB1nM3qW5eR7tY9uI1oP3aS5dF7gH9jK";
    expect([real, "a".repeat(100), "a".repeat(1024)].every(isFcmToken)).toBe(true);
    const padded = (s: string) => s + "a".repeat(120);
    expect(["", "x", "cap-1-0", "a".repeat(99), padded("a/b"), padded("a?b"), padded("a%2Fb"), padded("a b"), padded("a#b"), padded("a.b"), "a".repeat(1025)].some(isFcmToken)).toBe(false);
    expect(isApnsTopic("com.example.app")).toBe(true);
  });

  it("a malformed token is skipped by the topic subscription: no call for it, the others subscribed", async () => {
    const topic = `format-${newId()}`;
    const fcm = { ...pushConfig({ ...stackPushEnv(), ENVIRONMENT: "development" } as Env).fcm!, broadcastTopic: topic };
    const good = fcmToken();
    const done = await setBroadcastTopic(fcm, "subscribe", [good, `../../projects/other/messages:send${"a".repeat(100)}`, `x?topic_name=other${"a".repeat(100)}`, "x"]);
    expect(done).toEqual([good]);
    expect(await fcmTopicSubscribers(topic)).toEqual([good]);
    expect(await fcmTopicCalls(topic)).toBe(1);
  });
});
