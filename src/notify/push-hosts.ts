/**
 * Where a Web Push endpoint may point. A subscription's endpoint is chosen by whoever registers the
 * device, and the sender POSTs to it from inside our network: left open, it would reach any
 * address (a cloud metadata service, an internal host, a server that holds the connection). So an
 * endpoint must be on a browser push service's host — the list below, or WEBPUSH_ALLOWED_HOSTS in
 * its place — over https on the default port; the local push services of the dev and test stack
 * (WEBPUSH_LOCAL_ORIGINS) are allowed as well, with ENVIRONMENT=development only.
 */

/**
 * The push services browsers subscribe with: exact hosts, or `*.suffix` for any host under the
 * suffix (not the suffix itself). Chrome (FCM: `/fcm/send/…`, `/wp/…`), Firefox (Mozilla's
 * autopush), Safari (Apple's, `web.push.apple.com` and its other hosts) and Edge (WNS).
 */
export const DEFAULT_WEBPUSH_HOSTS: readonly string[] = [
  "fcm.googleapis.com",
  "updates.push.services.mozilla.com",
  "*.push.services.mozilla.com",
  "web.push.apple.com",
  "*.push.apple.com",
  "*.notify.windows.com",
];

/** One allowed host: `host`, `*.suffix`, either with `:port` for a port other than 443. */
type HostRule = { host: string; wildcard: boolean; port: string };

export type EndpointPolicy = {
  hosts: readonly HostRule[];
  /** Origins (`http://localhost:PORT`) of local push services, allowed as they are: development only. */
  localOrigins: readonly string[];
};

export type EndpointPolicyEnv = { ENVIRONMENT?: string; WEBPUSH_ALLOWED_HOSTS?: string; WEBPUSH_LOCAL_ORIGINS?: string };

const list = (value: string | undefined) => (value ?? "").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);

function parseRule(entry: string): HostRule {
  const wildcard = entry.startsWith("*.");
  const rest = wildcard ? entry.slice(2) : entry;
  // An IPv6 literal keeps its brackets: `[::1]:8443`.
  const match = /^(\[[0-9a-f:.]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(rest);
  if (!match) throw new Error(`WEBPUSH_ALLOWED_HOSTS: "${entry}" is not a host, *.suffix or host:port`);
  return { host: match[1]!, wildcard, port: match[2] ?? "" };
}

/** The endpoint rules of a deployment: WEBPUSH_ALLOWED_HOSTS replaces the default list when set. */
export function endpointPolicy(env: EndpointPolicyEnv): EndpointPolicy {
  const configured = list(env.WEBPUSH_ALLOWED_HOSTS);
  const localOrigins = env.ENVIRONMENT === "development" ? list(env.WEBPUSH_LOCAL_ORIGINS).map((o) => new URL(o).origin) : [];
  return { hosts: (configured.length > 0 ? configured : DEFAULT_WEBPUSH_HOSTS).map(parseRule), localOrigins };
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const isIpLiteral = (host: string) => host.startsWith("[") || IPV4.test(host);

/**
 * Why `endpoint` may not be sent to (a message for the `endpoint` field), or undefined when it may.
 * An IP-literal host or a port other than 443 passes only when an entry names it exactly.
 */
export function endpointProblem(endpoint: string, policy: EndpointPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return "must be a URL";
  }
  if (url.username !== "" || url.password !== "") return "must not carry a user name or password";
  if (policy.localOrigins.includes(url.origin)) return undefined;
  if (url.protocol !== "https:") return "must be https";
  const host = url.hostname.toLowerCase();
  const allowed = policy.hosts.some((rule) => {
    if (rule.port !== url.port) return false; // "" is 443, the https default
    if (!rule.wildcard) return host === rule.host;
    return !isIpLiteral(host) && host.endsWith(`.${rule.host}`);
  });
  if (allowed) return undefined;
  return `must be on a push service's host (${policy.hosts.map((r) => `${r.wildcard ? "*." : ""}${r.host}${r.port ? `:${r.port}` : ""}`).join(", ")})`;
}
