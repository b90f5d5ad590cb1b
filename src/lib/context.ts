import type { Env } from "../env";
import type { Caller } from "./caller";
import type { Services } from "./services";

/** Hono environment of the app: bindings plus typed per-request variables. */
export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    services: Services;
    caller: Caller;
  };
};
