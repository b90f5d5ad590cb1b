import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

/**
 * One live room: who is online, their count, attendance per session. Backed by the object's SQLite
 * storage. (The presence API arrives with the live-rooms capability.)
 */
export class LiveRoom extends DurableObject<Env> {
  async ping(): Promise<"pong"> {
    return "pong";
  }
}
