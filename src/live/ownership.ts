import type { Caller } from "../lib/caller";

/**
 * Who a live room belongs to, and what that allows. A room's owner is the host of its first
 * session (whoever started it); only a `service` or an `admin` may hand it to someone else, by
 * starting a session with `assignOwner: true`. The owner is kept by the room's primary object and
 * survives the room's expiry (`room.ts`), so an expired room is never free for a stranger to claim.
 *
 * - start or end a session: the owner, a service or an admin (a user may only host themself);
 * - list fan ids (online fans, loyal fans): the owner, a service or an admin;
 * - counts stay public.
 */

/** Services and admins may manage any room and list any room's fans. */
export function isPrivileged(caller: Caller): boolean {
  return caller.role === "service" || caller.role === "admin";
}

/** Whether `caller` may start or end sessions of a room owned by `ownerId` (null: nobody yet). */
export function mayManageRoom(caller: Caller, ownerId: string | null): boolean {
  return isPrivileged(caller) || (ownerId !== null && caller.userId === ownerId);
}

/** Whether `caller` may read fan ids of a room owned by `ownerId`. */
export const mayListFans = mayManageRoom;

export type StartRequest = { hostId: string; assignOwner: boolean; caller: Caller };

/**
 * The room's owner once this start is allowed, or null when it is refused. A user hosts
 * themself only (checked by the Worker too), and claims a room nobody owns; services and admins
 * start any room, and its owner becomes `hostId` when nobody owns it or when they ask to.
 */
export function ownerAfterStart(ownerId: string | null, start: StartRequest): string | null {
  if (isPrivileged(start.caller)) return ownerId === null || start.assignOwner ? start.hostId : ownerId;
  if (start.caller.userId !== start.hostId) return null;
  return ownerId === null || ownerId === start.hostId ? start.hostId : null;
}
