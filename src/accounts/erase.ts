import type { Eraser } from "../lib/erasers";
import { pageStep } from "../lib/erasers";
import { accountKeys } from "./keys";

/** The accounts capability's own eraser, last: the export claim. (The `account_deletions` row is what is kept.) */
export const accountsEraser: Eraser = {
  name: "accounts",
  async step(services, userId) {
    return pageStep(Number(await services.redisFor(userId).del(accountKeys.exported(userId))), false);
  },
};
