/**
 * Where a live room is created (`src/live/placement.ts`): the host's request's continent, with the
 * longitude splitting North America and Europe and the country picking out the Middle East, and
 * the app's own hint winning over it.
 */
import { describe, expect, it } from "vitest";
import { chooseLocationHint, LOCATION_HINTS, locationHintFor } from "../../src/live/placement";

describe("locationHintFor", () => {
  it("maps every continent Cloudflare reports to a hint region", () => {
    expect(locationHintFor({ continent: "NA", longitude: "-77.5" })).toBe("enam");
    expect(locationHintFor({ continent: "SA", longitude: "-46.6" })).toBe("sam");
    expect(locationHintFor({ continent: "EU", longitude: "-0.1" })).toBe("weur");
    expect(locationHintFor({ continent: "AS", longitude: "139.7", country: "JP" })).toBe("apac");
    expect(locationHintFor({ continent: "OC", longitude: "151.2" })).toBe("oc");
    expect(locationHintFor({ continent: "AF", longitude: "18.4" })).toBe("afr");
    expect(locationHintFor({ continent: "AN" })).toBeNull();
  });

  it("splits North America and Europe by longitude, and defaults each without one", () => {
    expect(locationHintFor({ continent: "NA", longitude: "-122.4" })).toBe("wnam");
    expect(locationHintFor({ continent: "NA", longitude: "-99.9" })).toBe("enam");
    expect(locationHintFor({ continent: "NA" })).toBe("enam");
    expect(locationHintFor({ continent: "EU", longitude: "21.0" })).toBe("eeur");
    expect(locationHintFor({ continent: "EU", longitude: 13.4 })).toBe("weur");
    expect(locationHintFor({ continent: "EU" })).toBe("weur");
  });

  it("sends Asian requests from the Middle East to `me`", () => {
    expect(locationHintFor({ continent: "AS", country: "AE" })).toBe("me");
    expect(locationHintFor({ continent: "AS", country: "IL" })).toBe("me");
    expect(locationHintFor({ continent: "AS", country: "IN" })).toBe("apac");
  });

  it("gives no hint without a place (local runs), so the object is created near the request", () => {
    expect(locationHintFor(undefined)).toBeNull();
    expect(locationHintFor({})).toBeNull();
  });

  it("only ever answers a hint Cloudflare documents", () => {
    const places = ["NA", "SA", "EU", "AS", "OC", "AF", "AN"].flatMap((continent) =>
      [-150, -100, -50, 0, 20, 40, 140].map((longitude) => ({ continent, longitude: String(longitude), country: "AE" })),
    );
    for (const place of places) {
      const hint = locationHintFor(place);
      if (hint !== null) expect(LOCATION_HINTS).toContain(hint);
    }
  });
});

describe("chooseLocationHint", () => {
  it("takes the app's hint over the request's place", () => {
    expect(chooseLocationHint("apac", { continent: "EU", longitude: "2.3" })).toBe("apac");
    expect(chooseLocationHint(undefined, { continent: "EU", longitude: "2.3" })).toBe("weur");
    expect(chooseLocationHint(undefined, undefined)).toBeNull();
  });
});
