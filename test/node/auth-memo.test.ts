/**
 * HS256 tokens are verified once per isolate and then remembered until their `exp`
 * (src/lib/auth.ts, `verifiedTokens`): what the memo answers must be what verifying again would.
 */
import { sign } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { verifyCallerToken } from "../../src/lib/auth";
import { ApiError } from "../../src/lib/errors";
import { newId } from "../support/ids";

const secret = "memo-test-secret-0123456789abcdef";
const config = { JWT_SECRET: secret } as Parameters<typeof verifyCallerToken>[1];

async function refusal(token: string, cfg = config): Promise<unknown> {
  try {
    await verifyCallerToken(token, cfg);
  } catch (error) {
    return error;
  }
  return null;
}

describe("remembered HS256 tokens", () => {
  it("answer the same caller again, and are refused once their exp passes", async () => {
    const userId = newId();
    // + 2: at least a whole second left, so the first verification never meets an exp just passing.
    const exp = Math.floor(Date.now() / 1000) + 2;
    const token = await sign({ sub: userId, role: "service", exp }, secret, "HS256");
    expect(await verifyCallerToken(token, config)).toEqual({ userId, role: "service" });
    expect(await verifyCallerToken(token, config)).toEqual({ userId, role: "service" }); // from the memo
    await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 50));
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await refusal(token);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).message).toBe("Invalid or expired token");
    }
  });

  it("are remembered per secret: a token verified under one secret is refused under another", async () => {
    const token = await sign({ sub: newId(), exp: Math.floor(Date.now() / 1000) + 600 }, secret, "HS256");
    expect((await verifyCallerToken(token, config)).role).toBe("user");
    const error = await refusal(token, { JWT_SECRET: "another-secret-0123456789abcdef" } as typeof config);
    expect((error as ApiError).message).toBe("Invalid or expired token");
  });

  it("are never remembered when refused: a bad signature is refused every time", async () => {
    const token = await sign({ sub: newId(), exp: Math.floor(Date.now() / 1000) + 600 }, "not-the-secret-0123456789abcdef", "HS256");
    for (let attempt = 0; attempt < 2; attempt++) expect(((await refusal(token)) as ApiError).message).toBe("Invalid or expired token");
  });
});
