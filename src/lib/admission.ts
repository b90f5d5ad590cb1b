import type { Caller } from "./caller";
import type { Services } from "./services";

/**
 * Checks every verified caller passes before a route or a socket serves them, registered by the
 * capabilities that own the state they read (accounts: a deletion running refuses the user's token
 * with 409; safety: a suspended user's with 403)
 * and run by `authenticate` and the socket routes. Registered here rather than imported, so the
 * shared library and the socket routes depend on no capability. A check throws the refusal
 * (an ApiError) and must cost no round trip on the hot path (it reads an isolate's snapshot).
 */
export type CallerCheck = (services: Services, caller: Caller) => Promise<void>;

const checks: CallerCheck[] = [];

/** Adds `check` to what every caller passes (once, however often it is registered). */
export function admitCallersWith(check: CallerCheck): void {
  if (!checks.includes(check)) checks.push(check);
}

/** Runs every registered check on `caller`, in registration order; the first refusal is thrown. */
export async function admitCaller(services: Services, caller: Caller): Promise<void> {
  for (const check of checks) await check(services, caller);
}
