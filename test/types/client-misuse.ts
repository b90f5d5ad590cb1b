/**
 * Calls the typed client must refuse at compile time. Every `@ts-expect-error` must meet an error,
 * or `tsc` fails with "Unused '@ts-expect-error' directive": test/node/client-types.test.ts runs
 * `tsc --noEmit -p test/types` on this file. Never executed.
 */
import { connectLiveRoom, createClient, registerWebPush } from "community-edge/client";

const api = createClient({ baseUrl: "https://edge.example.com", token: () => "jwt" });

export async function misuse() {
  // A wrong field name in a body.
  // @ts-expect-error `txt` is not a field of NewPost
  await api.POST("/v1/posts", { body: { txt: "hello" } });

  // A missing body.
  // @ts-expect-error POST /v1/posts requires a body
  await api.POST("/v1/posts", {});

  // A wrong query type.
  // @ts-expect-error `limit` is a number
  await api.GET("/v1/me/feed", { params: { query: { limit: "20" } } });
  // @ts-expect-error `cap` is a number
  await api.GET("/v1/me/badges", { params: { query: { cap: "99" } } });
  // @ts-expect-error `window` is one of 1h, 24h, 7d
  await api.GET("/v1/posts/trending", { params: { query: { window: "30d" } } });

  // A missing or misnamed path parameter, and a path that does not exist.
  // @ts-expect-error `id` is required
  await api.GET("/v1/posts/{id}", { params: { path: {} } });
  // @ts-expect-error the path parameter is `roomId`
  await api.GET("/v1/live/{roomId}/online", { params: { path: { room: "r" } } });
  // @ts-expect-error no such route
  await api.GET("/v1/postz/{id}", {});
  // @ts-expect-error POST is not a method of /v1/posts/{id}
  await api.POST("/v1/posts/{id}", { params: { path: { id: "1" } } });

  // Responses and errors are typed too.
  const { data, error } = await api.GET("/v1/posts/{id}", { params: { path: { id: "1" } } });
  // @ts-expect-error a Post has no `title`
  data?.title;
  // @ts-expect-error error codes are a closed set
  if (error?.error.code === "teapot") return;

  // Socket helpers: the mode is view or watch.
  // @ts-expect-error `listen` is not a mode
  connectLiveRoom({ baseUrl: "https://edge.example.com", token: () => "jwt", roomId: "r", mode: "listen" });

  // Web Push: a registration needs a pushManager, and an API to register with.
  const registration = await navigator.serviceWorker.ready;
  // @ts-expect-error a ServiceWorker is not its registration
  await registerWebPush(registration.active!, "key", { client: api });
  // @ts-expect-error no API named: a client, or baseUrl (+ token)
  await registerWebPush(registration, "key", { deviceId: "browser-1" });
}
