/** Shared set-ups of the badges tests (at N = 1 and over several Redis databases). */
import { expect } from "vitest";
import type { Env } from "../../src/env";
import { api, newId, show } from "../support/api";

export const admin = { userId: "1", role: "admin" as const };
export const service = { userId: "1", role: "service" as const };

/**
 * A user with something unread of every kind (broadcasts aside: other files publish them), written
 * through the Worker with `overrides` (at N = 3: the three databases' bindings; `me` then picks the
 * user's database).
 */
export async function busyUser(overrides?: Partial<Env>, me = newId()) {
  const [author, chat, peer, ch] = [newId(), newId(), newId(), `home-${newId()}`];
  const call = async (method: string, path: string, as: { userId: string; role?: "service" | "admin" }, body?: unknown) => {
    const res = await api(method, path, { as, body, env: overrides });
    expect(res.status, `${method} ${path}: ${show(res)}`).toBeLessThan(300);
  };
  await call("POST", `/v1/users/${me}/notifications`, service, { type: "reply", count: 2 });
  await call("POST", `/v1/users/${me}/notifications`, service, { type: "like", count: 3 });
  await call("PUT", `/v1/me/following/${author}`, { userId: me });
  for (let i = 0; i < 2; i++) await call("POST", "/v1/posts", { userId: author }, { text: `p${i}` });
  await call("PUT", `/v1/streams/chat/${chat}/members/${me}`, service);
  for (let i = 1; i <= 4; i++) await call("POST", `/v1/streams/chat/${chat}/items`, service, { at: Date.now() + 60_000 + i });
  await call("POST", `/v1/dms/${me}`, service, { from: peer, count: 5 });
  await call("POST", "/v1/messages", service, { to: [me], type: "system", title: "t", content: "c" });
  await call("PUT", `/v1/reddots/${ch}`, admin);
  return { me, author, chat, peer, ch };
}

