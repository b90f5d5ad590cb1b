/**
 * `npm run token -- --sub 42 [--role user|admin|service] [--ttl 3600]`:
 * prints an HS256 JWT the dev Worker accepts (same secret as `npm run dev`).
 */
import { parseArgs } from "node:util";
import { sign } from "hono/jwt";
import { devJwtSecret } from "./dev-vars.js";

const ROLES = ["user", "admin", "service"];

const { values } = parseArgs({
  options: {
    sub: { type: "string" },
    role: { type: "string", default: "user" },
    ttl: { type: "string", default: "3600" },
  },
});

const ttl = Number(values.ttl);
if (!values.sub || !/^[1-9][0-9]*$/.test(values.sub) || !ROLES.includes(values.role!) || !Number.isInteger(ttl) || ttl <= 0) {
  console.error(`usage: npm run token -- --sub <positive user id> [--role ${ROLES.join("|")}] [--ttl <seconds>]`);
  process.exit(2);
}

const exp = Math.floor(Date.now() / 1000) + ttl;
console.log(await sign({ sub: values.sub, role: values.role, exp }, devJwtSecret(), "HS256"));
