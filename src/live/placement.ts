/**
 * Where a room's objects are created. Cloudflare places a Durable Object on its first `get`: near
 * that request's data centre, or in the region a `locationHint` names (best effort). Every later
 * `get` reaches the object where it is, whatever hint it passes. A room is placed by its host's
 * session start so that the host's socket and the pushes of its counts stay short, and viewers
 * (who are anywhere) pay the distance to it.
 */

/** The hints Cloudflare documents for `DurableObjectNamespace.get(id, { locationHint })`. */
export const LOCATION_HINTS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const;
export type LocationHint = (typeof LOCATION_HINTS)[number];

/** The parts of `request.cf` the choice reads (absent in local development and tests). */
export type RequestPlace = { continent?: string; longitude?: string | number; country?: string } | undefined;

/** West of this longitude North America is `wnam` (the Rockies and the Pacific coast), east `enam`. */
const NORTH_AMERICA_SPLIT_LONGITUDE = -100;
/** East of this longitude Europe is `eeur` (Poland, the Baltics, the Balkans and east), west `weur`. */
const EUROPE_SPLIT_LONGITUDE = 20;
/** Countries Cloudflare's continent code puts in Asia whose nearest hint region is the Middle East. */
const MIDDLE_EAST = new Set(["AE", "BH", "IL", "IQ", "IR", "JO", "KW", "LB", "OM", "PS", "QA", "SA", "SY", "YE"]);

/**
 * The hint for a request from `place` (`request.cf`): its continent, with the longitude splitting
 * North America and Europe in two and the country picking out the Middle East. Null when the
 * request carries no place (local runs) or comes from Antarctica: the object is then created near
 * the request, which is where the host is anyway.
 */
export function locationHintFor(place: RequestPlace): LocationHint | null {
  const longitude = place?.longitude === undefined ? NaN : Number(place.longitude);
  switch (place?.continent) {
    case "NA":
      return longitude < NORTH_AMERICA_SPLIT_LONGITUDE ? "wnam" : "enam";
    case "SA":
      return "sam";
    case "EU":
      return longitude > EUROPE_SPLIT_LONGITUDE ? "eeur" : "weur";
    case "AS":
      return place.country !== undefined && MIDDLE_EAST.has(place.country) ? "me" : "apac";
    case "OC":
      return "oc";
    case "AF":
      return "afr";
    default:
      return null;
  }
}

/** The hint a session start places its room with: the app's own choice, else the host's request's. */
export function chooseLocationHint(requested: LocationHint | undefined, place: RequestPlace): LocationHint | null {
  return requested ?? locationHintFor(place);
}
