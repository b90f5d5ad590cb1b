/**
 * The shapes of the addresses and names push providers take, checked before any of them reaches a
 * provider's URL or header (one module, so registration and the senders apply the same rule).
 */

/**
 * An FCM registration token as the Firebase SDKs hand them out: 140–200-odd characters of
 * base64url characters and `:` (`{instance id}:APA91b…`); 100 is the floor (anything shorter is not
 * one), 1024 the ceiling. Nothing that could change the meaning of the topic subscription URL the
 * token is a path segment of (`/`, `?`, `%`, `#`, whitespace), however it is encoded.
 */
export const FCM_TOKEN_PATTERN = /^[A-Za-z0-9_:-]{100,1024}$/;
export const FCM_TOKEN_RULE = "must be an FCM registration token: 100–1024 of A-Z a-z 0-9 _ : -";

export function isFcmToken(token: string): boolean {
  return FCM_TOKEN_PATTERN.test(token);
}

/** Longest `apns-topic` taken: Apple's limit for a bundle id. */
export const MAX_APNS_TOPIC_LENGTH = 255;

/**
 * An APNs topic: the app's bundle id in reverse-DNS form (`com.example.community`), letters, digits
 * and `-` between dots, at least two parts; the suffixes Apple adds for other push types
 * (`.voip`, `.complication`, `.pushkit.fileprovider`) are more parts of the same form.
 */
export const APNS_TOPIC_PATTERN = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/;

export function isApnsTopic(topic: string): boolean {
  return topic.length <= MAX_APNS_TOPIC_LENGTH && APNS_TOPIC_PATTERN.test(topic);
}

/** What a 400 naming `topic` says. */
export const APNS_TOPIC_RULE = `must be a bundle id (reverse-DNS: letters, digits and - between dots, e.g. com.example.app), at most ${MAX_APNS_TOPIC_LENGTH} characters`;
