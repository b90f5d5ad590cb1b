/** Who is calling: the roles a token may carry and the caller the auth middleware sets (`./auth`). */
export const ROLES = ["user", "service", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** The authenticated caller: the token's user id (its `sub`, or the claim `JWT_USER_ID_CLAIM` names) and its role. */
export interface Caller {
  userId: string;
  role: Role;
}
