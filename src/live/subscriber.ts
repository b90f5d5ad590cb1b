import type { Subscriber } from "../lib/events";
import { ejectFromRoomsOf, ejectSuspended } from "./rooms";

/**
 * What live rooms do when another capability says so: a block ejects each one from the rooms the
 * other hosts (sockets closed, presence dropped); a suspension ends the sessions the user hosts and
 * ejects them from every other live room (4003).
 */
export const liveSubscriber: Subscriber = {
  name: "live",
  on: {
    "block.created": async (e, s) => {
      await Promise.all([ejectFromRoomsOf(s.emitter, e.blockerId, e.blockedId), ejectFromRoomsOf(s.emitter, e.blockedId, e.blockerId)]);
    },
    "user.suspended": async (e, s) => {
      await ejectSuspended(s.emitter, e.userId);
    },
  },
};
