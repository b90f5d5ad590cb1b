/**
 * The counters' packed cache value has one rule in two languages: `unpack_counters` in Lua (every
 * script that reads `ctr:c:*`) and `unpackCounters` in TypeScript (a bare MGET's reader, the feed
 * page's second round at N > 1). Both read the same values the same way, through real Redis.
 */
import { afterAll, describe, expect, it } from "vitest";
import { unpackCounters } from "../../src/counters/packing";
import { COUNTER_PACKING } from "../../src/counters/read.lua";
import { servicesFor } from "./support";

const { services, close } = servicesFor();
afterAll(close);

/** unpack_counters(ARGV[i], nf) for every sample: the values, or 0 for a miss. */
const UNPACK_ALL = `${COUNTER_PACKING}
local nf = tonumber(ARGV[1])
local out = {}
for i = 2, #ARGV do out[i - 1] = unpack_counters(ARGV[i], nf) or 0 end
return out
`;

const SAMPLES = ["1,2,3,4,5", "0,0,0,0,0", "-3,0,12,9007199254740991,7", "12", "-4", "1,2", "1,2,3", "1,,3,4,5", "1,2,3,4,", ",1,2,3,4", "1, 2,3,4,5", "1e5,2,3,4,5", "a,b,c,d,e", "1.5,2,3,4,5", "", "1,2,3,4,5,6", "--1,2,3,4,5"];

describe("the counters' packed value, read in Lua and in TypeScript", () => {
  for (const fieldCount of [1, 2, 3, 5]) {
    it(`agree on every sample for ${fieldCount} field(s)`, async () => {
      const lua = (await services.redis.eval(UNPACK_ALL, [], [String(fieldCount), ...SAMPLES])) as (string[] | number)[];
      const ts = SAMPLES.map((s) => unpackCounters(s, fieldCount) ?? 0);
      expect(ts).toEqual(lua.map((v) => (Array.isArray(v) ? v.map(String) : v)));
      // Each sample count has at least one value that unpacks, so the comparison is not all misses.
      expect(ts.some((v) => v !== 0)).toBe(true);
    });
  }

  it("reads a one-field value the client turned into a number as its text", () => {
    expect(unpackCounters(12, 1)).toEqual(["12"]);
    expect(unpackCounters(12.5, 1)).toBeNull();
    expect(unpackCounters(null, 1)).toBeNull();
  });
});
