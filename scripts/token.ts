/**
 * `npm run token -- --sub 42 [--role user|admin|service] [--ttl 3600] [--alg HS256|RS256|ES256|EdDSA]`:
 * prints a JWT the dev Worker accepts.
 * - HS256 (default): signed with JWT_SECRET, as `npm run dev` verifies it.
 * - RS256 / ES256 / EdDSA: signed by the local identity provider (scripts/dev-keys.ts), whose JWKS
 *   `npm run dev` serves and verifies through, as a deployment would through Auth0's or Clerk's;
 *   `--role` travels in a `role` claim that `npm run dev`'s JWT_ROLE_CLAIM maps.
 */
import { parseArgs } from "node:util";
import { sign } from "hono/jwt";
import { devJwtSecret } from "./dev-vars.js";
import { DEV_ISSUER, DEV_KEY_ALGS, devSigningKeys, signWithDevKey, type DevKeyAlg } from "./dev-keys.js";
import { DEV_DATA_DIR } from "./stack/postgres.js";

const ROLES = ["user", "admin", "service"];
const ALGS = ["HS256", ...DEV_KEY_ALGS];

const { values } = parseArgs({
  options: {
    sub: { type: "string" },
    role: { type: "string", default: "user" },
    ttl: { type: "string", default: "3600" },
    alg: { type: "string", default: "HS256" },
    "data-dir": { type: "string", default: DEV_DATA_DIR },
  },
});

const ttl = Number(values.ttl);
if (!values.sub || !/^[1-9][0-9]*$/.test(values.sub) || !ROLES.includes(values.role!) || !Number.isInteger(ttl) || ttl <= 0 || !ALGS.includes(values.alg!)) {
  console.error(`usage: npm run token -- --sub <positive user id> [--role ${ROLES.join("|")}] [--ttl <seconds>] [--alg ${ALGS.join("|")}]`);
  process.exit(2);
}

const now = Math.floor(Date.now() / 1000);
const exp = now + ttl;
if (values.alg === "HS256") {
  console.log(await sign({ sub: values.sub, role: values.role, exp }, devJwtSecret(), "HS256"));
} else {
  const keys = await devSigningKeys(values["data-dir"]!);
  console.log(await signWithDevKey(keys, values.alg as DevKeyAlg, { iss: DEV_ISSUER, sub: values.sub, role: values.role, iat: now, exp }));
}
