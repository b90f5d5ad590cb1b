import { describe, expect, it } from "vitest";
import { DEV_JWKS_PATH } from "../../src/lib/dev-jwks";
import { api, show } from "../support/api";

const DEV_JWKS = JSON.stringify({ keys: [{ kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", kid: "dev-eddsa", alg: "EdDSA", use: "sig" }] });

describe(`GET ${DEV_JWKS_PATH}`, () => {
  it("serves npm run dev's public keys in development", async () => {
    const res = await api("GET", DEV_JWKS_PATH, { env: { ENVIRONMENT: "development", DEV_JWKS } });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.keys[0].kid).toBe("dev-eddsa");
  });

  it("does not exist anywhere else, nor without keys", async () => {
    for (const env of [{ ENVIRONMENT: "production", DEV_JWKS }, { ENVIRONMENT: "development" }, {}]) {
      const res = await api("GET", DEV_JWKS_PATH, { env });
      expect(res.status, `${JSON.stringify(env)}: ${show(res)}`).toBe(404);
    }
  });
});
