/**
 * The README's typed-client snippet ("A first session"), compiled by test/node/client-types.test.ts as a
 * browser app would compile it, so the first code a developer copies type-checks.
 */
import { connectBadges, createClient, registerWebPush, type TokenProvider } from "community-edge/client";

declare function renewJwt(): Promise<string>;
declare function currentJwt(): string;

export async function readmeExample() {
  const baseUrl = "https://edge.example.com";
  const token: TokenProvider = ({ refresh }) => (refresh ? renewJwt() : currentJwt()); // asked again once after a 401 / 4001
  const api = createClient({ baseUrl, token });
  const { data, error } = await api.GET("/v1/counters/{entity}", { params: { path: { entity: "post" }, query: { ids: "42" } } });
  if (error) console.warn(error.error.code, error.error.message); // the API's error envelope, typed
  else console.log(data.items[0]?.counts.likes);
  const live = connectBadges({ baseUrl, token, cap: 99 }); // GET /v1/me/live: snapshot, then changes
  live.subscribe(({ badges }) => console.log("unread DMs:", badges?.dms.count));
}

/** The README's Web Push snippet: a browser's real `ServiceWorkerRegistration` fits `registerWebPush`. */
export async function readmeWebPush(baseUrl: string, token: TokenProvider) {
  const api = createClient({ baseUrl, token });
  const { data } = await api.GET("/v1/devices/webpush-key"); // the deployment's VAPID key
  const registration = await navigator.serviceWorker.register("/sw.js", { type: "module" });
  await registerWebPush(registration, data!.publicKey, { client: api }); // subscribe, then PUT /v1/me/devices/{deviceId}
}
