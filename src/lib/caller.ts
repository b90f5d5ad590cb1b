/** Who is calling: the roles a token may carry and the caller the auth middleware sets (`./auth`). */
export const ROLES = ["user", "service", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** The authenticated caller: `sub` of the token and its role. */
export interface Caller {
  userId: string;
  role: Role;
}
