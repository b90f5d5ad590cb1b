/**
 * Types of every route of the API, generated from its OpenAPI document by `npm run client:types`
 * (openapi-typescript). Do not edit: change the route's zod schemas, then regenerate.
 */

export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Reachability of Redis (each database) and Postgres (503 when either is down or the Redis setting is wrong)
         * @description Anyone: `status` and each dependency's `ok`. With an admin token: latencies, each Redis database's probe, answers past a command budget, and the dependencies' error messages (which may name hosts and settings).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Both reachable */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "status": "ok",
                         *       "redis": {
                         *         "ok": false,
                         *         "latencyMs": 1,
                         *         "error": "string",
                         *         "databases": [
                         *           {
                         *             "ok": false,
                         *             "latencyMs": 1,
                         *             "error": "string"
                         *           }
                         *         ],
                         *         "rateLimited": 1
                         *       },
                         *       "postgres": {
                         *         "ok": false,
                         *         "latencyMs": 1,
                         *         "error": "string"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Health"];
                    };
                };
                /** @description Redis or Postgres unreachable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "status": "ok",
                         *       "redis": {
                         *         "ok": false,
                         *         "latencyMs": 1,
                         *         "error": "string",
                         *         "databases": [
                         *           {
                         *             "ok": false,
                         *             "latencyMs": 1,
                         *             "error": "string"
                         *           }
                         *         ],
                         *         "rateLimited": 1
                         *       },
                         *       "postgres": {
                         *         "ok": false,
                         *         "latencyMs": 1,
                         *         "error": "string"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Health"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/posts/trending": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The posts with the most engagement in a window
         * @description Score = Σ weight × counter movement in the window (likes 1, comments 2, forwards 3, views 0.1), from hourly buckets: `1h` covers the last 60–120 minutes, `24h` 24–25 hours, `7d` 168–169 hours. A list is recomputed at most every 5 seconds; a deleted post leaves every list within 2 seconds of its delete, so shared caches may keep an answer 2 seconds. With a valid token the list leaves out the posts of users the reader blocked, who blocked the reader, or whom the reader mutes (and is not for shared caches).
         */
        get: {
            parameters: {
                query?: {
                    window?: "1h" | "24h" | "7d";
                    limit?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The trending posts, highest score first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "window": "1h",
                         *       "items": [
                         *         {
                         *           "post": {
                         *             "id": "42",
                         *             "authorId": "42",
                         *             "text": "string",
                         *             "createdAt": "2026-01-01T12:00:00.000Z"
                         *           },
                         *           "counts": {
                         *             "likes": 1,
                         *             "comments": 1,
                         *             "forwards": 1,
                         *             "views": 1,
                         *             "favorites": 1
                         *           },
                         *           "score": 1
                         *         }
                         *       ],
                         *       "degraded": false
                         *     }
                         */
                        "application/json": components["schemas"]["TrendingPosts"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/following/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Follow a user (idempotent) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    userId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The relation after the call; `changed` says whether this call changed it */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "followerId": "42",
                         *       "followeeId": "42",
                         *       "following": false,
                         *       "changed": false
                         *     }
                         */
                        "application/json": components["schemas"]["FollowChange"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A block stands between the caller and this user (code `blocked`); nothing changed */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "blocked",
                         *         "message": "A block stands between the caller and this user (code `blocked`); nothing changed"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /** Unfollow a user (idempotent) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    userId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The relation after the call; `changed` says whether this call changed it */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "followerId": "42",
                         *       "followeeId": "42",
                         *       "following": false,
                         *       "changed": false
                         *     }
                         */
                        "application/json": components["schemas"]["FollowChange"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{id}/followers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Followers of a user, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description Opaque cursor from a previous page's nextCursor */
                    cursor?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One page */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "items": [
                         *         {
                         *           "userId": "42",
                         *           "followedAt": "2026-01-01T12:00:00.000Z"
                         *         }
                         *       ],
                         *       "nextCursor": "string"
                         *     }
                         */
                        "application/json": components["schemas"]["FollowersPage"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{id}/following": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Users a user follows, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description Opaque cursor from a previous page's nextCursor */
                    cursor?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One page */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "items": [
                         *         {
                         *           "userId": "42",
                         *           "followedAt": "2026-01-01T12:00:00.000Z"
                         *         }
                         *       ],
                         *       "nextCursor": "string"
                         *     }
                         */
                        "application/json": components["schemas"]["FollowingPage"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/posts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a post by the caller
         * @description The users who chose the caller in `/v1/me/notification-authors` get a push (kind `author`) after the response, showing `alert` or, without it, "New post" and the start of the text.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "text": "Live at 8 tonight",
                     *       "alert": {
                     *         "title": "Ada posted",
                     *         "body": "Live at 8 tonight",
                     *         "url": "/posts/9"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["NewPost"];
                };
            };
            responses: {
                /** @description The new post */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "id": "42",
                         *       "authorId": "42",
                         *       "text": "Live at 8 tonight",
                         *       "createdAt": "2026-01-01T12:00:00.000Z",
                         *       "held": true
                         *     }
                         */
                        "application/json": components["schemas"]["NewPostResult"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/posts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a post
         * @description Public. The post with its counts and, with a valid token, the caller's like and favourite: answered from the caches a feed page reads, near the caller (docs/feed.md). With a valid token, 403 `blocked` when the reader and the author blocked each other (either way).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The post */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "id": "42",
                         *       "authorId": "42",
                         *       "text": "Live at 8 tonight",
                         *       "createdAt": "2026-01-01T12:00:00.000Z",
                         *       "counts": {
                         *         "likes": 1,
                         *         "comments": 1,
                         *         "forwards": 1,
                         *         "views": 1,
                         *         "favorites": 1
                         *       },
                         *       "liked": false,
                         *       "favorited": false
                         *     }
                         */
                        "application/json": components["schemas"]["PostDetail"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A block stands between the caller and this user (code `blocked`); nothing changed */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "blocked",
                         *         "message": "A block stands between the caller and this user (code `blocked`); nothing changed"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "not_found",
                         *         "message": "No such resource"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a post (its author or an admin); later reads answer 404 */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "id": "42",
                         *       "deleted": true
                         *     }
                         */
                        "application/json": {
                            /** @example 42 */
                            id: string;
                            /** @enum {boolean} */
                            deleted: true;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "not_found",
                         *         "message": "No such resource"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{id}/posts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Posts of a user, newest first
         * @description Public. With a valid token, 403 `blocked` when the reader and the user blocked each other (either way).
         */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description Opaque cursor from a previous page's nextCursor */
                    cursor?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One page */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "items": [
                         *         {
                         *           "id": "42",
                         *           "authorId": "42",
                         *           "text": "Live at 8 tonight",
                         *           "createdAt": "2026-01-01T12:00:00.000Z"
                         *         }
                         *       ],
                         *       "nextCursor": "string"
                         *     }
                         */
                        "application/json": components["schemas"]["PostsPage"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A block stands between the caller and this user (code `blocked`); nothing changed */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "blocked",
                         *         "message": "A block stands between the caller and this user (code `blocked`); nothing changed"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{id}/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add notifications of one type for a user (type and total in one atomic step) */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Retries with the same key within 24 h are applied once and answered the same */
                    "idempotency-key"?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "type": "reply",
                     *       "count": 1,
                     *       "alert": {
                     *         "title": "Ada",
                     *         "body": "lunch?",
                     *         "url": "/dms/7",
                     *         "thread": "dm:7"
                     *       },
                     *       "from": "42"
                     *     }
                     */
                    "application/json": components["schemas"]["NewNotifications"];
                };
            };
            responses: {
                /** @description Counts after the call; `applied` is false for a repeated Idempotency-Key, and when `suppressed` says why nothing was counted or pushed */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "userId": "42",
                         *       "type": "string",
                         *       "count": 1,
                         *       "total": 1,
                         *       "applied": false,
                         *       "suppressed": "blocked"
                         *     }
                         */
                        "application/json": {
                            /** @example 42 */
                            userId: string;
                            type: string;
                            count: number;
                            total: number;
                            applied: boolean;
                            /**
                             * @description Why nothing was counted or pushed: the user blocked the sender (or the sender the user), mutes the sender's notifications, or the sender is suspended
                             * @enum {string}
                             */
                            suppressed?: "blocked" | "muted" | "suspended";
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Unread notifications by type and in total (uncapped) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Counts */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "byType": {
                         *         "reply": 3
                         *       },
                         *       "total": 1,
                         *       "degraded": false
                         *     }
                         */
                        "application/json": {
                            /**
                             * @example {
                             *       "reply": 3
                             *     }
                             */
                            byType: {
                                [key: string]: number;
                            };
                            total: number;
                            /** @description true when Redis was unavailable: zeros, or what Postgres knows */
                            degraded: boolean;
                        };
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/notifications/{type}/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark one type read (the total drops by exactly its count) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    type: "reply" | "like" | "mention" | "follow" | "comment" | "repost" | "system";
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description What was cleared */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "type": "string",
                         *       "cleared": 1,
                         *       "total": 1
                         *     }
                         */
                        "application/json": {
                            type: string;
                            cleared: number;
                            total: number;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/notifications/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark every notification read */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description What was cleared */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "cleared": 1,
                         *       "total": 1
                         *     }
                         */
                        "application/json": {
                            cleared: number;
                            total: number;
                        };
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/broadcasts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Publish a system broadcast (nothing is written per user) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "title": "string",
                     *       "body": "string",
                     *       "push": false,
                     *       "alert": {
                     *         "title": "Ada",
                     *         "body": "lunch?",
                     *         "url": "/dms/7",
                     *         "thread": "dm:7"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["NewBroadcast"];
                };
            };
            responses: {
                /** @description The broadcast */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "id": "42",
                         *       "title": "string",
                         *       "body": "string",
                         *       "createdAt": "2026-01-01T12:00:00.000Z",
                         *       "degraded": false
                         *     }
                         */
                        "application/json": components["schemas"]["Broadcast"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/broadcasts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Broadcasts newest first with a read flag, and the unread count */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description Opaque cursor from a previous page's nextCursor */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One page */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "unread": 1,
                         *       "lastReadId": "string",
                         *       "degraded": false,
                         *       "items": [
                         *         {
                         *           "id": "42",
                         *           "title": "string",
                         *           "body": "string",
                         *           "createdAt": "2026-01-01T12:00:00.000Z",
                         *           "read": false
                         *         }
                         *       ],
                         *       "nextCursor": "string"
                         *     }
                         */
                        "application/json": components["schemas"]["BroadcastsPage"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/broadcasts/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Move the last-read marker up to `upTo` (default: newest); never backwards */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    /**
                     * @example {
                     *       "upTo": "42"
                     *     }
                     */
                    "application/json": components["schemas"]["ReadBroadcasts"];
                };
            };
            responses: {
                /** @description The marker after the call */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "lastReadId": "string",
                         *       "degraded": false
                         *     }
                         */
                        "application/json": {
                            lastReadId: string;
                            /** @description true when Redis was unavailable: Postgres kept the change, the cache is repaired later */
                            degraded: boolean;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reddots/{channel}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Stamp a channel as refreshed now (creates it; at most 200 channels) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    channel: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Stamped */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "channel": "string",
                         *       "refreshedAt": "string"
                         *     }
                         */
                        "application/json": {
                            channel: string;
                            refreshedAt: string;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "conflict",
                         *         "message": "Conflicts with the current state"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/reddots/{channel}/seen": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stamp the caller as having seen a channel now */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    channel: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Stamped */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "channel": "string",
                         *       "seenAt": "string"
                         *     }
                         */
                        "application/json": {
                            channel: string;
                            seenAt: string;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "not_found",
                         *         "message": "No such resource"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/reddots": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether each channel shows a dot for the caller */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Dots */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "dots": {
                         *         "key": false
                         *       },
                         *       "degraded": false
                         *     }
                         */
                        "application/json": {
                            dots: {
                                [key: string]: boolean;
                            };
                            /** @description true when Redis was unavailable: zeros, or what Postgres knows */
                            degraded: boolean;
                        };
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/unread/authors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** New posts per followed author, largest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description Opaque cursor from a previous page's nextCursor */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One page and the total over every followed author */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "total": 1,
                         *       "items": [
                         *         {
                         *           "authorId": "42",
                         *           "unread": 1
                         *         }
                         *       ],
                         *       "nextCursor": "string",
                         *       "degraded": false
                         *     }
                         */
                        "application/json": components["schemas"]["UnreadAuthorsPage"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/authors/{id}/seen": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Catch up on one followed author */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Caught up */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "authorId": "42",
                         *       "unread": 1
                         *     }
                         */
                        "application/json": {
                            /** @example 42 */
                            authorId: string;
                            unread: number;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "not_found",
                         *         "message": "No such resource"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/streams/{kind}/{id}/items": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Record that an item was posted in a stream (keeps the newest `cap` timestamps) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    kind: string;
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "at": 1,
                     *       "itemId": "42",
                     *       "cap": 99,
                     *       "alert": {
                     *         "title": "Ada",
                     *         "body": "lunch?",
                     *         "url": "/dms/7",
                     *         "thread": "dm:7"
                     *       },
                     *       "from": "42"
                     *     }
                     */
                    "application/json": components["schemas"]["NewStreamItem"];
                };
            };
            responses: {
                /** @description Recorded */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "stream": "string",
                         *       "kept": 1
                         *     }
                         */
                        "application/json": {
                            stream: string;
                            kept: number;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/streams/{kind}/{id}/members/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Add a member (their unread starts now); idempotent */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    kind: string;
                    id: string;
                    userId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Membership after the call */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "stream": "string",
                         *       "userId": "42",
                         *       "member": false,
                         *       "changed": false,
                         *       "degraded": false
                         *     }
                         */
                        "application/json": {
                            stream: string;
                            /** @example 42 */
                            userId: string;
                            member: boolean;
                            changed: boolean;
                            /** @description true when Redis was unavailable: Postgres kept the change, the cache is repaired later */
                            degraded: boolean;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /** Remove a member; idempotent */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    kind: string;
                    id: string;
                    userId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Membership after the call */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "stream": "string",
                         *       "userId": "42",
                         *       "member": false,
                         *       "changed": false,
                         *       "degraded": false
                         *     }
                         */
                        "application/json": {
                            stream: string;
                            /** @example 42 */
                            userId: string;
                            member: boolean;
                            changed: boolean;
                            /** @description true when Redis was unavailable: Postgres kept the change, the cache is repaired later */
                            degraded: boolean;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/streams/{kind}/{id}/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stamp the caller's last access to a stream now (auto mark on open) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    kind: string;
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Stamped */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "stream": "string",
                         *       "lastAccessAt": "string",
                         *       "degraded": false
                         *     }
                         */
                        "application/json": {
                            stream: string;
                            lastAccessAt: string;
                            /** @description true when Redis was unavailable: Postgres kept the change, the cache is repaired later */
                            degraded: boolean;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/streams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Unread per stream (streams with news only) and the total; counting stops past `cap` */
        get: {
            parameters: {
                query?: {
                    /** @description Stop counting at this number (1..999) */
                    cap?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Unread */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "total": 1,
                         *       "byStream": {
                         *         "reply": 3
                         *       },
                         *       "degraded": false
                         *     }
                         */
                        "application/json": {
                            total: number;
                            /**
                             * @example {
                             *       "reply": 3
                             *     }
                             */
                            byStream: {
                                [key: string]: number;
                            };
                            /** @description true when Redis was unavailable: zeros, or what Postgres knows */
                            degraded: boolean;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dms/{toUserId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Count new direct messages from a peer (peer and total in one atomic step) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    toUserId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "from": "42",
                     *       "count": 1,
                     *       "alert": {
                     *         "title": "Ada",
                     *         "body": "lunch?",
                     *         "url": "/dms/7",
                     *         "thread": "dm:7"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["NewDirectMessages"];
                };
            };
            responses: {
                /** @description Counts after the call; `applied: false, suppressed: "muted"` when the recipient mutes the sender's notifications, `"suspended"` when the sender is suspended (accepted, neither counted nor pushed) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "userId": "42",
                         *       "peerId": "42",
                         *       "count": 1,
                         *       "total": 1,
                         *       "applied": false,
                         *       "suppressed": "blocked"
                         *     }
                         */
                        "application/json": {
                            /** @example 42 */
                            userId: string;
                            /** @example 42 */
                            peerId: string;
                            count: number;
                            total: number;
                            applied: boolean;
                            /**
                             * @description Why nothing was counted or pushed: the user blocked the sender (or the sender the user), mutes the sender's notifications, or the sender is suspended
                             * @enum {string}
                             */
                            suppressed?: "blocked" | "muted" | "suspended";
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller; or: A block stands between the caller and this user (code `blocked`); nothing changed */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/dms/{peerId}/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark the messages from one peer read */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    peerId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description What was cleared */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "peerId": "42",
                         *       "cleared": 1,
                         *       "total": 1
                         *     }
                         */
                        "application/json": {
                            /** @example 42 */
                            peerId: string;
                            cleared: number;
                            total: number;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/dms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Unread direct messages by peer and in total */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Counts */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "byPeer": {
                         *         "reply": 3
                         *       },
                         *       "total": 1,
                         *       "degraded": false
                         *     }
                         */
                        "application/json": {
                            /**
                             * @example {
                             *       "reply": 3
                             *     }
                             */
                            byPeer: {
                                [key: string]: number;
                            };
                            total: number;
                            /** @description true when Redis was unavailable: zeros, or what Postgres knows */
                            degraded: boolean;
                        };
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send one inbox message to up to 1,000 users */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "to": [
                     *         "42"
                     *       ],
                     *       "type": "system",
                     *       "title": "string",
                     *       "content": "string",
                     *       "alert": {
                     *         "title": "Ada",
                     *         "body": "lunch?",
                     *         "url": "/dms/7",
                     *         "thread": "dm:7"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["NewInboxMessage"];
                };
            };
            responses: {
                /** @description Stored */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "id": "42",
                         *       "recipients": 1,
                         *       "degraded": false
                         *     }
                         */
                        "application/json": {
                            /** @example 42 */
                            id: string;
                            recipients: number;
                            /** @description true when Redis was unavailable: Postgres kept the change, the cache is repaired later */
                            degraded: boolean;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's inbox, newest first */
        get: {
            parameters: {
                query?: {
                    type?: string;
                    unread?: "true" | "false";
                    limit?: number;
                    /** @description Opaque cursor from a previous page's nextCursor */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One page */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "items": [
                         *         {
                         *           "id": "42",
                         *           "type": "string",
                         *           "title": "string",
                         *           "content": "string",
                         *           "createdAt": "2026-01-01T12:00:00.000Z",
                         *           "read": false
                         *         }
                         *       ],
                         *       "nextCursor": "string"
                         *     }
                         */
                        "application/json": components["schemas"]["InboxPage"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/messages/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark every unread message (of one type) read; idempotent */
        post: {
            parameters: {
                query?: {
                    type?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description How many turned read */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "marked": 1,
                         *       "degraded": false
                         *     }
                         */
                        "application/json": {
                            marked: number;
                            /** @description true when Redis was unavailable: Postgres kept the change, the cache is repaired later */
                            degraded: boolean;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/messages/{id}/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark one message read; idempotent */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Read */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "id": "42",
                         *       "read": false,
                         *       "changed": false,
                         *       "degraded": false
                         *     }
                         */
                        "application/json": {
                            /** @example 42 */
                            id: string;
                            read: boolean;
                            changed: boolean;
                            /** @description true when Redis was unavailable: Postgres kept the change, the cache is repaired later */
                            degraded: boolean;
                        };
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "not_found",
                         *         "message": "No such resource"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/badges": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every badge of the home screen in one Redis round trip, each capped */
        get: {
            parameters: {
                query?: {
                    /** @description Stop counting at this number (1..999) */
                    cap?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Badges (200 with `degraded` when Redis is down) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "cap": 1,
                         *       "degraded": false,
                         *       "notifications": {
                         *         "byType": {
                         *           "reply": {
                         *             "count": 3,
                         *             "capped": false
                         *           }
                         *         },
                         *         "total": {
                         *           "count": 1,
                         *           "capped": false
                         *         }
                         *       },
                         *       "broadcasts": {
                         *         "count": 1,
                         *         "capped": false
                         *       },
                         *       "reddots": {
                         *         "key": false
                         *       },
                         *       "authors": {
                         *         "count": 1,
                         *         "capped": false
                         *       },
                         *       "streams": {
                         *         "total": {
                         *           "count": 1,
                         *           "capped": false
                         *         },
                         *         "byStream": {
                         *           "reply": {
                         *             "count": 3,
                         *             "capped": false
                         *           }
                         *         }
                         *       },
                         *       "dms": {
                         *         "count": 1,
                         *         "capped": false
                         *       },
                         *       "inbox": {
                         *         "byType": {
                         *           "reply": {
                         *             "count": 3,
                         *             "capped": false
                         *           }
                         *         },
                         *         "total": {
                         *           "count": 1,
                         *           "capped": false
                         *         }
                         *       },
                         *       "feed": {
                         *         "count": 1,
                         *         "capped": false
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Badges"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * WebSocket: the caller's badges, pushed when they change
         * @description The JWT comes as `?token=` or as a subprotocol next to `live` (answered `live`); `?cap=` as on GET /v1/me/badges.
         *     A missing, bad or expired token gets a 401 JSON error before any upgrade.
         *     - First message: `{"type":"badges","badges":<the body GET /v1/me/badges?cap= answers>}` (with `degraded: true` when Redis is down; a fresh snapshot follows once it is back).
         *     - Then, when badges change (from any device or service): `{"type":"badges","changed":{<kind>:<value>}}` with only the kinds that changed, in the shapes of GET /v1/me/badges.
         *       The first change after a quiet second goes out at once; then at most one message per 1000 ms, carrying the latest values.
         *     - The client may send `ping` (answered `pong` by the runtime) and `badges` (answered with a fresh snapshot); anything else gets
         *       `{"type":"error","error":{"code":"bad_request","message":…}}` and changes nothing.
         *     - Close codes: 4001 "token expired" (reconnect with a fresh token: a new snapshot), 4008 beyond 10 sockets per user,
         *       1009 for a client message over 1024 bytes.
         */
        get: {
            parameters: {
                query?: {
                    token?: string;
                    /** @description Stop counting at this number (1..999) */
                    cap?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Switching to the WebSocket protocol */
                101: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/counters/{entity}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every counter of up to 100 entities (zeros for unknown ids; never negative)
         * @description Hot entities are answered from a per-isolate copy at most `COUNTER_EDGE_CACHE_MS` (≤ 1 s) old, never older; `fresh=true` reads Redis. A single-id answer carries `Cache-Control: public, max-age=` the same bound in whole seconds.
         */
        get: {
            parameters: {
                query: {
                    /** @description Comma-separated ids, at most 100 */
                    ids: string;
                    /** @description true: read Redis, not the edge copy (e.g. right after the caller's own write); the answer is not cacheable */
                    fresh?: "true" | "false";
                };
                header?: never;
                path: {
                    entity: "user" | "post" | "group";
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Counts in the order of `ids` */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "entity": "post",
                         *       "stale": false,
                         *       "items": [
                         *         {
                         *           "id": "42",
                         *           "counts": {
                         *             "views": 120,
                         *             "comments": 4,
                         *             "likes": 17,
                         *             "favorites": 2,
                         *             "forwards": 1
                         *           }
                         *         }
                         *       ]
                         *     }
                         */
                        "application/json": components["schemas"]["Counters"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/counters/{entity}/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add deltas to counters of one entity (role service); Idempotency-Key makes retries apply once */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Retries with the same key within 24 h are applied once and answered the same */
                    "idempotency-key"?: string;
                };
                path: {
                    entity: "user" | "post" | "group";
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "deltas": {
                     *         "comments": 1,
                     *         "coins": -5
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["CounterDeltas"];
                };
            };
            responses: {
                /** @description Applied (or, with header Idempotent-Replayed: true, the first answer for this key) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "entity": "user",
                         *       "id": "42",
                         *       "deltas": {
                         *         "key": 1
                         *       },
                         *       "counts": {
                         *         "key": 1
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["CounterIncrement"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "conflict",
                         *         "message": "Conflicts with the current state"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/posts/{id}/likes/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Add the caller's like of a post (idempotent) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The relation after the call; `changed` says whether this call changed it (and the counter) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "postId": "42",
                         *       "userId": "42",
                         *       "liked": false,
                         *       "favorited": false,
                         *       "changed": false,
                         *       "counts": {
                         *         "key": 1
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["ReactionChange"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A block stands between the caller and this user (code `blocked`); nothing changed */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "blocked",
                         *         "message": "A block stands between the caller and this user (code `blocked`); nothing changed"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "not_found",
                         *         "message": "No such resource"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /** Remove the caller's like of a post (idempotent) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The relation after the call; `changed` says whether this call changed it (and the counter) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "postId": "42",
                         *       "userId": "42",
                         *       "liked": false,
                         *       "favorited": false,
                         *       "changed": false,
                         *       "counts": {
                         *         "key": 1
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["ReactionChange"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "not_found",
                         *         "message": "No such resource"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/posts/{id}/favorites/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Add the caller's favourite of a post (idempotent) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The relation after the call; `changed` says whether this call changed it (and the counter) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "postId": "42",
                         *       "userId": "42",
                         *       "liked": false,
                         *       "favorited": false,
                         *       "changed": false,
                         *       "counts": {
                         *         "key": 1
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["ReactionChange"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A block stands between the caller and this user (code `blocked`); nothing changed */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "blocked",
                         *         "message": "A block stands between the caller and this user (code `blocked`); nothing changed"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "not_found",
                         *         "message": "No such resource"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /** Remove the caller's favourite of a post (idempotent) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The relation after the call; `changed` says whether this call changed it (and the counter) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "postId": "42",
                         *       "userId": "42",
                         *       "liked": false,
                         *       "favorited": false,
                         *       "changed": false,
                         *       "counts": {
                         *         "key": 1
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["ReactionChange"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "not_found",
                         *         "message": "No such resource"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/posts/{id}/views": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Count a view of a post (limited per user by VIEW_LIMITER) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Counted */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "postId": "42",
                         *       "counted": true
                         *     }
                         */
                        "application/json": components["schemas"]["ViewCounted"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/counters/reconcile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Recompute relation-derived counters (followers, following, posts, likes, favorites) and repair drift (role admin) */
        post: {
            parameters: {
                query?: {
                    /** @description Continue from a previous report's next.entity */
                    entity?: "user" | "post" | "group";
                    /** @description Continue after this id (next.after) */
                    after?: string;
                    /** @description Reconcile only these ids of `entity` (at most 100) */
                    ids?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description What drifted and was repaired; `next` is where to continue if the time budget ran out */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "scanned": 1,
                         *       "drifted": 1,
                         *       "drift": [
                         *         {
                         *           "entity": "user",
                         *           "id": "42",
                         *           "field": "string",
                         *           "counted": 1,
                         *           "expected": 1
                         *         }
                         *       ],
                         *       "next": {
                         *         "entity": "user",
                         *         "after": "42"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["ReconcileReport"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/live/{roomId}/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a live session (the room's owner hosting themself, a user hosting themself in a room nobody owns, which they then own, or role service or admin); a live one ends first */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    roomId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "hostId": "42",
                     *       "assignOwner": false,
                     *       "shards": 1,
                     *       "locationHint": "wnam"
                     *     }
                     */
                    "application/json": components["schemas"]["NewLiveSession"];
                };
            };
            responses: {
                /** @description The new session */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "roomId": "string",
                         *       "sessionId": "42",
                         *       "hostId": "42",
                         *       "ownerId": "42",
                         *       "shards": 1,
                         *       "location": "wnam",
                         *       "startedAt": "2026-01-01T12:00:00.000Z",
                         *       "endedAt": "2026-01-01T12:00:00.000Z"
                         *     }
                         */
                        "application/json": components["schemas"]["LiveSession"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/live/{roomId}/sessions/current": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** End the live session (the room's owner, service or admin); everyone leaves, the room expires 6 h later */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    roomId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The ended session */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "roomId": "string",
                         *       "sessionId": "42",
                         *       "hostId": "42",
                         *       "ownerId": "42",
                         *       "shards": 1,
                         *       "location": "wnam",
                         *       "startedAt": "2026-01-01T12:00:00.000Z",
                         *       "endedAt": "2026-01-01T12:00:00.000Z"
                         *     }
                         */
                        "application/json": components["schemas"]["LiveSession"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "conflict",
                         *         "message": "Conflicts with the current state"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/live/{roomId}/presence": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enter the room, or refresh presence (HTTP clients refresh within 60 s or are dropped) */
        post: {
            parameters: {
                query?: {
                    /** @description Which of the caller's devices; one viewer until all have left */
                    device?: string;
                };
                header?: never;
                path: {
                    roomId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The caller's presence after the call */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "roomId": "string",
                         *       "userId": "42",
                         *       "online": false,
                         *       "isFan": false,
                         *       "joined": false,
                         *       "left": false,
                         *       "sessionId": "42"
                         *     }
                         */
                        "application/json": components["schemas"]["LivePresence"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "conflict",
                         *         "message": "Conflicts with the current state"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        /** Leave the room from this device (idempotent) */
        delete: {
            parameters: {
                query?: {
                    /** @description Which of the caller's devices; one viewer until all have left */
                    device?: string;
                };
                header?: never;
                path: {
                    roomId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The caller's presence after the call */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "roomId": "string",
                         *       "userId": "42",
                         *       "online": false,
                         *       "isFan": false,
                         *       "joined": false,
                         *       "left": false,
                         *       "sessionId": "42"
                         *     }
                         */
                        "application/json": components["schemas"]["LivePresence"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/live/online": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Counts of many rooms in one call (role service) */
        get: {
            parameters: {
                query: {
                    rooms: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Counts per room, in the order asked */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "items": [
                         *         {
                         *           "roomId": "string",
                         *           "viewers": 1,
                         *           "onlineFans": 1,
                         *           "sessionId": "42",
                         *           "live": false
                         *         }
                         *       ]
                         *     }
                         */
                        "application/json": components["schemas"]["LiveCountsList"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/live/{roomId}/online": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Viewers and online fans now; with list=fans, a page of the online fans (the room's owner, service or admin only) */
        get: {
            parameters: {
                query?: {
                    list?: "fans";
                    limit?: number;
                    /** @description Opaque cursor from a previous page's nextCursor */
                    cursor?: string;
                };
                header?: never;
                path: {
                    roomId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Counts, or a page of online fans */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "roomId": "string",
                         *       "viewers": 1,
                         *       "onlineFans": 1,
                         *       "sessionId": "42",
                         *       "live": false
                         *     }
                         */
                        "application/json": components["schemas"]["LiveCounts"] | components["schemas"]["LiveFansPage"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/live/{roomId}/online/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether a user is in the room now, and as a fan */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    roomId: string;
                    userId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Presence of the user */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "roomId": "string",
                         *       "userId": "42",
                         *       "online": false,
                         *       "isFan": false,
                         *       "joinedAt": "2026-01-01T12:00:00.000Z"
                         *     }
                         */
                        "application/json": components["schemas"]["LiveViewer"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/live/{roomId}/joined": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** How many distinct fans joined in [from, to) (at most 31 days) */
        get: {
            parameters: {
                query: {
                    from: string;
                    to: string;
                };
                header?: never;
                path: {
                    roomId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The count */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "roomId": "string",
                         *       "from": "2026-01-01T12:00:00.000Z",
                         *       "to": "2026-01-01T12:00:00.000Z",
                         *       "fans": 1
                         *     }
                         */
                        "application/json": components["schemas"]["LiveJoinedFans"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/live/{roomId}/loyal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Fans who attended every (mode=all) or any (mode=any) of the last N sessions: the count to anyone, ids to the room's owner, service or admin */
        get: {
            parameters: {
                query?: {
                    sessions?: number;
                    mode?: "all" | "any";
                    limit?: number;
                    /** @description Opaque cursor from a previous page's nextCursor */
                    cursor?: string;
                };
                header?: never;
                path: {
                    roomId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Count, and ids for the room's owner, services and admins */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "roomId": "string",
                         *       "mode": "all",
                         *       "sessionIds": [
                         *         "42"
                         *       ],
                         *       "count": 1,
                         *       "items": [
                         *         {
                         *           "userId": "42"
                         *         }
                         *       ],
                         *       "nextCursor": "string"
                         *     }
                         */
                        "application/json": components["schemas"]["LiveLoyalFans"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/live/{roomId}/ws": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** WebSocket: view the room (mode=view, default) or watch its counts (mode=watch; the host always watches). The JWT comes as ?token= or as a subprotocol next to `live` (answered `live`). Send `ping` at least every 60 s (answered `pong`); watchers receive {type:'counts', viewers, onlineFans} at most once per second. When the token expires the socket is closed with 4001 "token expired" (reconnect with a fresh token). */
        get: {
            parameters: {
                query?: {
                    token?: string;
                    mode?: "view" | "watch";
                };
                header?: never;
                path: {
                    roomId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Switching to the WebSocket protocol */
                101: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "conflict",
                         *         "message": "Conflicts with the current state"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/feed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's home timeline: posts of the accounts they follow and their own, newest first, hydrated
         * @description Each item carries the post, its counters and the caller's like/favourite flags. A page may hold fewer than `limit` items (deleted posts are skipped) and still have a `nextCursor`; the last page has `nextCursor: null`. A first page (no `cursor`) resets the caller's `feed` badge to zero.
         */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description Opaque cursor from a previous page's nextCursor */
                    cursor?: string;
                    /** @description `ranked`: the newest 300 items scored by `(1 + likes + 2·comments + 3·forwards) / (age_hours + 2)^1.5`; the cursor carries that ranking (at most 4 KB) and walks it for 15 minutes, so items do not move between pages; after that, or with a cursor of an earlier version, it is refused (400 on `cursor`): drop the cursor for a new ranking */
                    order?: "chronological" | "ranked";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One page of the home timeline */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "items": [
                         *         {
                         *           "post": {
                         *             "id": "42",
                         *             "authorId": "42",
                         *             "text": "string",
                         *             "createdAt": "2026-01-01T12:00:00.000Z"
                         *           },
                         *           "counts": {
                         *             "likes": 1,
                         *             "comments": 1,
                         *             "forwards": 1,
                         *             "views": 1,
                         *             "favorites": 1
                         *           },
                         *           "liked": false,
                         *           "favorited": false
                         *         }
                         *       ],
                         *       "nextCursor": "string",
                         *       "degraded": false
                         *     }
                         */
                        "application/json": components["schemas"]["FeedPage"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/devices/{deviceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Register (or re-register) one of the caller's devices for push notifications
         * @description `deviceId` is the app's own name for the install. One device per endpoint/token: registering one already registered (by this user under another id, or by another user) moves it here. A user has at most 20 devices; past that the oldest registration is dropped (listed in `evicted`). A kind the deployment has no credentials for is refused (`"fcm is not configured on this deployment"`).
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    deviceId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "kind": "webpush",
                     *       "endpoint": "https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bH…",
                     *       "keys": {
                     *         "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                     *         "auth": "BTBZMqHH6r4Tts7J_aSIgg"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["DeviceRegistration"];
                };
            };
            responses: {
                /** @description Registered */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "device": {
                         *         "kind": "webpush",
                         *         "endpoint": "https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bH…",
                         *         "keys": {
                         *           "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                         *           "auth": "BTBZMqHH6r4Tts7J_aSIgg"
                         *         },
                         *         "deviceId": "string",
                         *         "registeredAt": "string"
                         *       },
                         *       "moved": false,
                         *       "evicted": []
                         *     }
                         */
                        "application/json": components["schemas"]["DeviceRegistered"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /** Unregister one of the caller's devices (idempotent) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    deviceId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Done */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "deviceId": "string",
                         *       "deleted": false
                         *     }
                         */
                        "application/json": components["schemas"]["DeviceDeleted"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's registered devices */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The caller's devices */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "items": [
                         *         {
                         *           "kind": "webpush",
                         *           "endpoint": "https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bH…",
                         *           "keys": {
                         *             "p256dh": null,
                         *             "auth": null
                         *           },
                         *           "deviceId": "string",
                         *           "registeredAt": "string"
                         *         }
                         *       ]
                         *     }
                         */
                        "application/json": components["schemas"]["DeviceList"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/devices/webpush-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The deployment's VAPID public key: the applicationServerKey a page subscribes with */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The key */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "publicKey": "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
                         *     }
                         */
                        "application/json": components["schemas"]["WebPushKey"];
                    };
                };
                /** @description No such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "not_found",
                         *         "message": "No such resource"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/notification-preferences": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's push preferences (the defaults until changed) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The preferences */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "kinds": {
                         *         "dm": true,
                         *         "broadcast": false
                         *       },
                         *       "types": {
                         *         "like": false
                         *       },
                         *       "policy": {
                         *         "dm": "everyone",
                         *         "mention": "everyone"
                         *       },
                         *       "quietHours": {
                         *         "start": "22:00",
                         *         "end": "07:00",
                         *         "timeZone": "Europe/Paris",
                         *         "urgent": [
                         *           "dm"
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["NotificationPreferences"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        /**
         * Replace the caller's push preferences
         * @description Checked before any push is queued: kinds and notification types on or off, who may reach the caller by a direct message or a mention, and quiet hours (held pushes are sent when they end). Fields left out take their defaults.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "kinds": {
                     *         "dm": true,
                     *         "broadcast": false
                     *       },
                     *       "types": {
                     *         "like": false
                     *       },
                     *       "policy": {
                     *         "dm": "everyone",
                     *         "mention": "everyone"
                     *       },
                     *       "quietHours": {
                     *         "start": "22:00",
                     *         "end": "07:00",
                     *         "timeZone": "Europe/Paris",
                     *         "urgent": [
                     *           "dm"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["NotificationPreferences"];
                };
            };
            responses: {
                /** @description Stored */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "kinds": {
                         *         "dm": true,
                         *         "broadcast": false
                         *       },
                         *       "types": {
                         *         "like": false
                         *       },
                         *       "policy": {
                         *         "dm": "everyone",
                         *         "mention": "everyone"
                         *       },
                         *       "quietHours": {
                         *         "start": "22:00",
                         *         "end": "07:00",
                         *         "timeZone": "Europe/Paris",
                         *         "urgent": [
                         *           "dm"
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["NotificationPreferences"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/notification-authors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The followed authors whose posts notify the caller */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The chosen authors */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "items": [
                         *         {
                         *           "authorId": "42",
                         *           "chosenAt": "2026-05-01T20:00:00.000Z"
                         *         }
                         *       ]
                         *     }
                         */
                        "application/json": components["schemas"]["NotificationAuthorList"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/notification-authors/{authorId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Be notified of a followed author's posts (idempotent)
         * @description Each post of the author then pushes to the caller's devices (kind `author`), as preferences, quiet hours and open apps allow. Only an author the caller follows (409 naming `authorId` otherwise), at most 100 (409 past it: remove one first). Unfollowing the author removes the choice.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    authorId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The choice after the call */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "authorId": "42",
                         *       "chosen": false,
                         *       "changed": false
                         *     }
                         */
                        "application/json": components["schemas"]["NotificationAuthorChange"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "conflict",
                         *         "message": "Conflicts with the current state"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /**
         * Stop being notified of an author's posts (idempotent)
         * @description `changed: false` when the author was not chosen.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    authorId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The choice after the call */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "authorId": "42",
                         *       "chosen": false,
                         *       "changed": false
                         *     }
                         */
                        "application/json": components["schemas"]["NotificationAuthorChange"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/blocks/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Block a user (idempotent): both follows end, and nothing of theirs reaches you
         * @description Ends the caller's follow of the user and the user's follow of the caller, as two unfollows would. From then on the user's follows of the caller, likes and favourites of the caller's posts and DMs to the caller are refused with 403 `blocked`, and notifications they cause for the caller are accepted but neither counted nor pushed. Unblocking restores nothing.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    userId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The block (its first `createdAt` when it already existed) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "userId": "42",
                         *       "createdAt": "2026-01-01T12:00:00.000Z",
                         *       "changed": false
                         *     }
                         */
                        "application/json": components["schemas"]["BlockChange"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "conflict",
                         *         "message": "Conflicts with the current state"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /** Unblock a user (idempotent); no follow comes back */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    userId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No block after the call */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "userId": "42",
                         *       "blocked": false,
                         *       "changed": false
                         *     }
                         */
                        "application/json": components["schemas"]["Unblock"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/blocks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Users the caller blocked, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description Opaque cursor from a previous page's nextCursor */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One page */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "items": [
                         *         {
                         *           "userId": "42",
                         *           "createdAt": "2026-01-01T12:00:00.000Z"
                         *         }
                         *       ],
                         *       "nextCursor": "string"
                         *     }
                         */
                        "application/json": components["schemas"]["BlocksPage"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/mutes/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Mute a user, optionally their notifications and for a while (PUT: sets the mute as sent)
         * @description The user stays followed. With `notifications` (default true) their notifications and DMs to the caller are accepted but neither counted nor pushed (`applied: false, suppressed: "muted"`). With `durationSeconds` the mute ends by itself; what they posted meanwhile does not come back.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    userId: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    /**
                     * @example {
                     *       "notifications": true,
                     *       "durationSeconds": 60
                     *     }
                     */
                    "application/json": components["schemas"]["NewMute"];
                };
            };
            responses: {
                /** @description The mute after the call */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "userId": "42",
                         *       "notifications": false,
                         *       "expiresAt": "2026-01-01T12:00:00.000Z",
                         *       "createdAt": "2026-01-01T12:00:00.000Z",
                         *       "changed": false
                         *     }
                         */
                        "application/json": components["schemas"]["MuteChange"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "conflict",
                         *         "message": "Conflicts with the current state"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /** Unmute a user (idempotent) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    userId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No mute after the call */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "userId": "42",
                         *       "muted": false,
                         *       "changed": false
                         *     }
                         */
                        "application/json": components["schemas"]["Unmute"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/mutes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Users the caller mutes (mutes in force), newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description Opaque cursor from a previous page's nextCursor */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One page */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "items": [
                         *         {
                         *           "userId": "42",
                         *           "notifications": false,
                         *           "expiresAt": "2026-01-01T12:00:00.000Z",
                         *           "createdAt": "2026-01-01T12:00:00.000Z"
                         *         }
                         *       ],
                         *       "nextCursor": "string"
                         *     }
                         */
                        "application/json": components["schemas"]["MutesPage"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete the caller's account and everything it holds
         * @description Body `{"confirm": "<your user id>"}`. Answers at once; the deletion runs in the background (GET /v1/admin/deletions/{id}).
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "confirm": "42"
                     *     }
                     */
                    "application/json": components["schemas"]["DeletionConfirm"];
                };
            };
            responses: {
                /** @description The deletion runs (the same one for a repeated request); the user's token gets 409 account_deleting until it finishes */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "deletionId": "42",
                         *       "status": "running"
                         *     }
                         */
                        "application/json": components["schemas"]["DeletionStarted"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The account is being deleted; the id is a new, empty user once that finishes */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "account_deleting",
                         *         "message": "The account is being deleted; the id is a new, empty user once that finishes"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a user's account (a service or an admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The deletion runs (the same one for a repeated request); the user's token gets 409 account_deleting until it finishes */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "deletionId": "42",
                         *       "status": "running"
                         *     }
                         */
                        "application/json": components["schemas"]["DeletionStarted"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/deletions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A deletion's progress: what each capability removed so far, and its end */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The deletion */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "deletionId": "42",
                         *       "userId": "42",
                         *       "status": "running",
                         *       "askedAt": "2026-01-01T12:00:00.000Z",
                         *       "finishedAt": "2026-01-01T12:00:00.000Z",
                         *       "progress": [
                         *         {
                         *           "capability": "string",
                         *           "removed": 1,
                         *           "done": false
                         *         }
                         *       ]
                         *     }
                         */
                        "application/json": components["schemas"]["Deletion"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "not_found",
                         *         "message": "No such resource"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/deletions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Running deletions (newest first), then the most recent finished ones, with their progress */
        get: {
            parameters: {
                query?: {
                    /** @description 1–50, default 20 */
                    limit?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The deletions */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "items": [
                         *         {
                         *           "deletionId": "42",
                         *           "userId": "42",
                         *           "status": "running",
                         *           "askedAt": "2026-01-01T12:00:00.000Z",
                         *           "finishedAt": "2026-01-01T12:00:00.000Z",
                         *           "progress": [
                         *             {
                         *               "capability": "string",
                         *               "removed": 1,
                         *               "done": false
                         *             }
                         *           ]
                         *         }
                         *       ]
                         *     }
                         */
                        "application/json": components["schemas"]["DeletionList"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's data as NDJSON, one record a line (once an hour)
         * @description Records `{"type": …}`: account, post (with counts), following, followers (the count), like, favorite, device (kind and registration time only), preferences, chosen_author, block, mute (in force), report (made), unread. Streamed; at most one export per user per hour (429 with Retry-After).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One JSON record a line */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/x-ndjson": string;
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The account is being deleted; the id is a new, empty user once that finishes */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "account_deleting",
                         *         "message": "The account is being deleted; the id is a new, empty user once that finishes"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report a user and some of their posts to the operators
         * @description Rate-limited per reporter (10 a minute). A second report of the same user by the same reporter while the first is open adds its posts and comment to it: `200` with the same id (`201` for a new report). The posts' text is kept as it is now.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "userId": "42",
                     *       "postIds": [],
                     *       "category": "spam",
                     *       "comment": ""
                     *     }
                     */
                    "application/json": components["schemas"]["NewReport"];
                };
            };
            responses: {
                /** @description Added to the caller's open report of this user */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "id": "42",
                         *       "userId": "42",
                         *       "category": "spam",
                         *       "postIds": [
                         *         "42"
                         *       ],
                         *       "status": "open",
                         *       "createdAt": "2026-01-01T12:00:00.000Z",
                         *       "updatedAt": "2026-01-01T12:00:00.000Z"
                         *     }
                         */
                        "application/json": components["schemas"]["ReportReceipt"];
                    };
                };
                /** @description A new report */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "id": "42",
                         *       "userId": "42",
                         *       "category": "spam",
                         *       "postIds": [
                         *         "42"
                         *       ],
                         *       "status": "open",
                         *       "createdAt": "2026-01-01T12:00:00.000Z",
                         *       "updatedAt": "2026-01-01T12:00:00.000Z"
                         *     }
                         */
                        "application/json": components["schemas"]["ReportReceipt"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "conflict",
                         *         "message": "Conflicts with the current state"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "rate_limited",
                         *         "message": "Too many requests; see Retry-After"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/reports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The report queue: open reports oldest first (resolved: newest first), with their age and the posts' text as reported */
        get: {
            parameters: {
                query?: {
                    status?: "open" | "resolved";
                    limit?: number;
                    /** @description Opaque cursor from a previous page's nextCursor */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One page */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "items": [
                         *         {
                         *           "id": "42",
                         *           "status": "open",
                         *           "reporterId": "42",
                         *           "reporterErased": false,
                         *           "userId": "42",
                         *           "category": "spam",
                         *           "comment": "string",
                         *           "createdAt": "2026-01-01T12:00:00.000Z",
                         *           "updatedAt": "2026-01-01T12:00:00.000Z",
                         *           "ageSeconds": 1,
                         *           "resolvedAt": "2026-01-01T12:00:00.000Z",
                         *           "resolution": "dismiss",
                         *           "posts": [
                         *             {
                         *               "postId": "42",
                         *               "text": "string",
                         *               "reportedAt": "2026-01-01T12:00:00.000Z",
                         *               "state": "live"
                         *             }
                         *           ],
                         *           "actions": [
                         *             {
                         *               "action": "dismiss",
                         *               "actorId": "42",
                         *               "note": "string",
                         *               "at": "2026-01-01T12:00:00.000Z"
                         *             }
                         *           ]
                         *         }
                         *       ],
                         *       "nextCursor": "string"
                         *     }
                         */
                        "application/json": components["schemas"]["ReportsPage"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/reports/{id}/actions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Act on an open report: dismiss, remove-posts, suspend or approve (held posts); recorded and the report resolved */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "action": "dismiss",
                     *       "note": ""
                     *     }
                     */
                    "application/json": components["schemas"]["ReportAction"];
                };
            };
            responses: {
                /** @description The report after the action */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "id": "42",
                         *       "status": "open",
                         *       "reporterId": "42",
                         *       "reporterErased": false,
                         *       "userId": "42",
                         *       "category": "spam",
                         *       "comment": "string",
                         *       "createdAt": "2026-01-01T12:00:00.000Z",
                         *       "updatedAt": "2026-01-01T12:00:00.000Z",
                         *       "ageSeconds": 1,
                         *       "resolvedAt": "2026-01-01T12:00:00.000Z",
                         *       "resolution": "dismiss",
                         *       "posts": [
                         *         {
                         *           "postId": "42",
                         *           "text": "string",
                         *           "reportedAt": "2026-01-01T12:00:00.000Z",
                         *           "state": "live"
                         *         }
                         *       ],
                         *       "actions": [
                         *         {
                         *           "action": "dismiss",
                         *           "actorId": "42",
                         *           "note": "string",
                         *           "at": "2026-01-01T12:00:00.000Z"
                         *         }
                         *       ]
                         *     }
                         */
                        "application/json": components["schemas"]["Report"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "not_found",
                         *         "message": "No such resource"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "conflict",
                         *         "message": "Conflicts with the current state"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/users/{id}/suspension": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Suspend a user (idempotent): their requests answer 403 `suspended`, their posts are hidden everywhere, nothing they cause is pushed */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "reason": "string"
                     *     }
                     */
                    "application/json": components["schemas"]["NewSuspension"];
                };
            };
            responses: {
                /** @description The suspension */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "userId": "42",
                         *       "suspended": false,
                         *       "reason": "string",
                         *       "suspendedAt": "2026-01-01T12:00:00.000Z",
                         *       "changed": false
                         *     }
                         */
                        "application/json": components["schemas"]["Suspension"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "conflict",
                         *         "message": "Conflicts with the current state"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /** Lift a suspension (idempotent): everything the user posted shows again */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No suspension after the call */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "userId": "42",
                         *       "suspended": false,
                         *       "reason": "string",
                         *       "suspendedAt": "2026-01-01T12:00:00.000Z",
                         *       "changed": false
                         *     }
                         */
                        "application/json": components["schemas"]["Suspension"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/moderation/terms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The term filter's list */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The list */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "terms": [
                         *         "string"
                         *       ],
                         *       "version": 1,
                         *       "updatedAt": "2026-01-01T12:00:00.000Z"
                         *     }
                         */
                        "application/json": components["schemas"]["ModerationTerms"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        /**
         * Replace the term filter's list (up to 1000 terms): a new post containing one is held for an operator
         * @description Matched case-insensitively after NFKC normalisation, anywhere in the text (so in text without spaces too). Every isolate applies a new list within seconds.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "terms": [
                     *         "string"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["NewModerationTerms"];
                };
            };
            responses: {
                /** @description The list now */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "terms": [
                         *         "string"
                         *       ],
                         *       "version": 1,
                         *       "updatedAt": "2026-01-01T12:00:00.000Z"
                         *     }
                         */
                        "application/json": components["schemas"]["ModerationTerms"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What the service is doing: dependencies, flush, fan-out, dead letters, sockets, push broadcasts, live rooms, cron (role admin)
         * @description One answer from state that exists or that background jobs record once per run; reads no per-user key. Costs at most 9 billed Redis commands on database 0 (one script + PING), plus 1 + one per push broadcast shown (≤ 5), and 6 on each other database (its counter figures), 2 Postgres statements and one call per badge hub shard.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The figures; a dependency that did not answer has `ok: false` and its figures null */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "at": "2026-01-01T12:00:00.000Z",
                         *       "dependencies": {
                         *         "redis": [
                         *           {
                         *             "name": "string",
                         *             "ok": false,
                         *             "latencyMs": 1,
                         *             "error": "string",
                         *             "index": 1
                         *           }
                         *         ],
                         *         "postgres": {
                         *           "name": "string",
                         *           "ok": false,
                         *           "latencyMs": 1,
                         *           "error": "string"
                         *         }
                         *       },
                         *       "counters": {
                         *         "pendingFields": 1,
                         *         "unappliedBatches": 1,
                         *         "oldestUnappliedBatch": {
                         *           "batch": "string",
                         *           "cutAt": "2026-01-01T12:00:00.000Z",
                         *           "database": 1
                         *         },
                         *         "flushLagMs": 1,
                         *         "databases": [
                         *           {
                         *             "index": 1,
                         *             "ok": false,
                         *             "pendingFields": 1,
                         *             "unappliedBatches": 1,
                         *             "oldestUnappliedBatch": {
                         *               "batch": "string",
                         *               "cutAt": "2026-01-01T12:00:00.000Z"
                         *             },
                         *             "flushLagMs": 1
                         *           }
                         *         ],
                         *         "lastFlush": {
                         *           "at": "string",
                         *           "durationMs": 1,
                         *           "outcome": "ok",
                         *           "ageMs": 1,
                         *           "cut": 1,
                         *           "batches": 1,
                         *           "deltas": 1,
                         *           "statements": 1,
                         *           "remaining": 1,
                         *           "error": "string"
                         *         },
                         *         "reconcile": {
                         *           "running": false,
                         *           "position": {
                         *             "entity": "string",
                         *             "after": "string"
                         *           },
                         *           "startedAt": "2026-01-01T12:00:00.000Z",
                         *           "correctedSoFar": 1,
                         *           "lastPass": {
                         *             "startedAt": "string",
                         *             "finishedAt": "string",
                         *             "corrected": 1
                         *           }
                         *         }
                         *       },
                         *       "feed": {
                         *         "deadLetters": {
                         *           "key": 1
                         *         },
                         *         "deadLettersTotal": 1,
                         *         "oldestDeadLetterAt": "2026-01-01T12:00:00.000Z",
                         *         "bigAccounts": {
                         *           "big": 1,
                         *           "toBig": 1,
                         *           "toNormal": 1
                         *         },
                         *         "fanouts": {
                         *           "samples": 1,
                         *           "p50Ms": 1,
                         *           "p99Ms": 1,
                         *           "maxMs": 1,
                         *           "lastAt": "2026-01-01T12:00:00.000Z"
                         *         }
                         *       },
                         *       "badgesPush": {
                         *         "hubs": 1,
                         *         "hubsAnswered": 1,
                         *         "hubsFailed": 1,
                         *         "socketsOpen": 1,
                         *         "usersOnline": 1
                         *       },
                         *       "notify": {
                         *         "broadcasts": [
                         *           {
                         *             "id": "42",
                         *             "state": "running",
                         *             "devices": {
                         *               "queued": 1,
                         *               "sent": 1,
                         *               "failed": 1,
                         *               "dropped": 1,
                         *               "pending": 1,
                         *               "retries": 1
                         *             },
                         *             "users": {
                         *               "paged": 1,
                         *               "queued": 1,
                         *               "total": 1
                         *             },
                         *             "pages": {
                         *               "done": 1,
                         *               "total": 1,
                         *               "cursor": "string"
                         *             },
                         *             "topic": {
                         *               "name": "string",
                         *               "sentAt": "string",
                         *               "error": "string"
                         *             },
                         *             "startedAt": "string",
                         *             "pagedAt": "string",
                         *             "finishedAt": "string",
                         *             "lastAt": "string",
                         *             "devicesPerSecond": 1
                         *           }
                         *         ]
                         *       },
                         *       "liveRooms": {
                         *         "startedLast6h": 1,
                         *         "largest": [
                         *           {
                         *             "roomId": "string",
                         *             "viewers": 1,
                         *             "onlineFans": 1
                         *           }
                         *         ],
                         *         "asOf": "2026-01-01T12:00:00.000Z",
                         *         "asked": 1,
                         *         "live": 1
                         *       },
                         *       "reports": {
                         *         "open": 1,
                         *         "oldestOpenAt": "2026-01-01T12:00:00.000Z",
                         *         "oldestOpenAgeMs": 1
                         *       },
                         *       "cron": {
                         *         "key": {
                         *           "schedule": "string",
                         *           "lastRun": {
                         *             "startedAt": "string",
                         *             "durationMs": 1,
                         *             "outcome": "ok",
                         *             "tasks": [
                         *               {
                         *                 "name": "string",
                         *                 "ok": false,
                         *                 "durationMs": 1,
                         *                 "error": "string"
                         *               }
                         *             ]
                         *           }
                         *         }
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["OperationsStatus"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/status/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The status figures a minute apart over the last 24 hours, as the flush cron sampled them (role admin)
         * @description What the console draws on open. Kept in Redis `ops:history` on database 0 (a sorted set of at most 1440 points, written by the flush cron with its run record, expiring a day after the last). Costs one billed Redis command.
         */
        get: {
            parameters: {
                query?: {
                    /** @description The last this many minutes (1 … 1440, all of them by default) */
                    minutes?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The points, oldest first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "minutes": 1,
                         *       "stepMs": 60000,
                         *       "points": [
                         *         {
                         *           "at": "2026-01-01T12:00:00.000Z",
                         *           "flushLagMs": 1,
                         *           "pendingFields": 1,
                         *           "unappliedBatches": 1,
                         *           "fanoutP99Ms": 1,
                         *           "deadLetters": 1
                         *         }
                         *       ]
                         *     }
                         */
                        "application/json": components["schemas"]["OperationsStatusHistory"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/dead-letters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Dead letters waiting, newest first: the message, its queue, when it died, the last error (role admin) */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description Opaque cursor from a previous page's nextCursor */
                    cursor?: string;
                    /** @description Only this queue's */
                    queue?: "feed-fanout" | "feed-follow-sync" | "notify-send";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of dead letters */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "items": [
                         *         {
                         *           "id": "42",
                         *           "queue": "feed-fanout",
                         *           "body": {
                         *             "kind": "fanout",
                         *             "op": "add",
                         *             "postId": "42",
                         *             "authorId": "7",
                         *             "after": null
                         *           },
                         *           "diedAt": "2026-01-01T12:00:00.000Z",
                         *           "lastError": "string"
                         *         }
                         *       ],
                         *       "nextCursor": "string"
                         *     }
                         */
                        "application/json": components["schemas"]["DeadLetterPage"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/dead-letters/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send dead letters back to their queue (the listed ids, or the oldest 100 of a queue); each is removed once sent (role admin)
         * @description Every feed message is idempotent, so replaying one twice changes nothing more. `more` says whether the queue still has dead letters waiting.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "ids": [
                     *         "12",
                     *         "13"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["DeadLetterReplay"];
                };
            };
            responses: {
                /** @description What was sent */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "replayed": 1,
                         *       "ids": [
                         *         "42"
                         *       ],
                         *       "more": false
                         *     }
                         */
                        "application/json": components["schemas"]["DeadLetterReplayResult"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/dead-letters/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Discard one dead letter without sending it (role admin) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Discarded */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "id": "42",
                         *       "discarded": true
                         *     }
                         */
                        "application/json": components["schemas"]["DeadLetterDiscarded"];
                    };
                };
                /** @description Invalid input; details name the fields */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "bad_request",
                         *         "message": "Invalid input; details name the fields",
                         *         "details": [
                         *           {
                         *             "field": "limit",
                         *             "message": "Too big: expected number to be <=100"
                         *           }
                         *         ]
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unauthorized",
                         *         "message": "Missing, invalid or expired token"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this caller */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "forbidden",
                         *         "message": "Not allowed for this caller"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "not_found",
                         *         "message": "No such resource"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A backing service is unavailable */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        /**
                         * @example {
                         *       "error": {
                         *         "code": "unavailable",
                         *         "message": "A backing service is unavailable"
                         *       }
                         *     }
                         */
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Health: {
            /** @enum {string} */
            status: "ok" | "unavailable";
            redis: {
                ok: boolean;
                /** @description With an admin token only */
                latencyMs?: number;
                /** @description With an admin token only: why the probe failed */
                error?: string;
                /** @description With an admin token only. With several Redis databases: each one's probe, database 0 first */
                databases?: {
                    ok: boolean;
                    /** @description With an admin token only */
                    latencyMs?: number;
                    /** @description With an admin token only: why the probe failed */
                    error?: string;
                }[];
                /** @description With an admin token only. Answers past a database's command budget this isolate got since it started */
                rateLimited?: number;
            };
            postgres: {
                ok: boolean;
                /** @description With an admin token only */
                latencyMs?: number;
                /** @description With an admin token only: why the probe failed */
                error?: string;
            };
        };
        TrendingPosts: {
            /** @enum {string} */
            window: "1h" | "24h" | "7d";
            items: {
                post: {
                    /** @example 42 */
                    id: string;
                    /** @example 42 */
                    authorId: string;
                    text: string;
                    /** Format: date-time */
                    createdAt: string;
                };
                counts: {
                    likes: number;
                    comments: number;
                    forwards: number;
                    views: number;
                    favorites: number;
                };
                score: number;
            }[];
            /** @description true when Redis was unreachable (the list is then empty) */
            degraded: boolean;
        };
        Error: {
            error: {
                /** @enum {string} */
                code: "bad_request" | "unauthorized" | "forbidden" | "blocked" | "suspended" | "not_found" | "method_not_allowed" | "conflict" | "account_deleting" | "payload_too_large" | "rate_limited" | "internal" | "unavailable";
                message: string;
                details?: unknown;
            };
        };
        FollowChange: {
            /** @example 42 */
            followerId: string;
            /** @example 42 */
            followeeId: string;
            following: boolean;
            changed: boolean;
        };
        FollowersPage: {
            items: components["schemas"]["FollowEdge"][];
            nextCursor: string | null;
        };
        FollowEdge: {
            /** @example 42 */
            userId: string;
            /** Format: date-time */
            followedAt: string;
        };
        FollowingPage: {
            items: components["schemas"]["FollowEdge"][];
            nextCursor: string | null;
        };
        NewPostResult: components["schemas"]["Post"] & {
            /**
             * @description The term filter holds the post for an operator: shown to you only until approved
             * @enum {boolean}
             */
            held?: true;
        };
        Post: {
            /** @example 42 */
            id: string;
            /** @example 42 */
            authorId: string;
            /** @example Live at 8 tonight */
            text: string;
            /** Format: date-time */
            createdAt: string;
        };
        NewPost: {
            /** @example Live at 8 tonight */
            text: string;
            alert?: components["schemas"]["PostPushAlert"];
        };
        /**
         * @description What the push to the users who chose this author shows (title ≤ 100, body ≤ 500, url a path of the app ≤ 1000, thread ≤ 200 characters). Without it: "New post" and the start of the text. The thread is always the author's: `author:{authorId}`, or `author:{authorId}:{thread}`.
         * @example {
         *       "title": "Ada posted",
         *       "body": "Live at 8 tonight",
         *       "url": "/posts/9"
         *     }
         */
        PostPushAlert: components["schemas"]["PushAlert"] & {
            /**
             * @description A path of the app: one leading /, on the app's origin once resolved, no backslash, control character or whitespace (percent-encoded or not)
             * @example /posts/9
             */
            url?: string;
        };
        /**
         * @description What a push for this write shows on a closed app (title ≤ 100, body ≤ 500, url ≤ 1000, thread ≤ 200 characters, not starting with "~"). Without it, or for the fields it leaves out, a plain default per kind is used ("New message"; an inbox message's or a broadcast's own title and body); `thread` groups and collapses pushes (default per kind and target).
         * @example {
         *       "title": "Ada",
         *       "body": "lunch?",
         *       "url": "/dms/7",
         *       "thread": "dm:7"
         *     }
         */
        PushAlert: {
            title?: string;
            body?: string;
            url?: string;
            thread?: string;
        };
        PostDetail: components["schemas"]["Post"] & {
            counts: {
                likes: number;
                comments: number;
                forwards: number;
                views: number;
                favorites: number;
            };
            /** @description The caller likes this post (false without a token) */
            liked: boolean;
            /** @description The caller favourited this post (false without a token) */
            favorited: boolean;
        };
        PostsPage: {
            items: components["schemas"]["Post"][];
            nextCursor: string | null;
        };
        NewNotifications: {
            /** @enum {string} */
            type: "reply" | "like" | "mention" | "follow" | "comment" | "repost" | "system";
            /** @default 1 */
            count?: number;
            alert?: components["schemas"]["PushAlert"];
            /**
             * @description Who caused it (a mention's author): the user's mention policy is checked against it; without it a policy other than `everyone` sends no push
             * @example 42
             */
            from?: string;
        };
        Broadcast: {
            /** @example 42 */
            id: string;
            title: string;
            body: string;
            /** Format: date-time */
            createdAt: string;
            /** @description true when Redis was unavailable: Postgres kept the change, the cache is repaired later */
            degraded: boolean;
        };
        NewBroadcast: {
            title: string;
            body: string;
            /**
             * @description Also a push notification to every user with a device (not online, preferences allowing), paged through the queue at a bounded rate
             * @default false
             */
            push?: boolean;
            alert?: components["schemas"]["PushAlert"];
        };
        BroadcastsPage: {
            unread: number;
            lastReadId: string;
            /** @description true when Redis was unavailable: zeros, or what Postgres knows */
            degraded: boolean;
            items: {
                /** @example 42 */
                id: string;
                title: string;
                body: string;
                /** Format: date-time */
                createdAt: string;
                read: boolean;
            }[];
            nextCursor: string | null;
        };
        ReadBroadcasts: {
            /** @example 42 */
            upTo?: string;
        };
        UnreadAuthorsPage: {
            total: number;
            items: {
                /** @example 42 */
                authorId: string;
                unread: number;
            }[];
            nextCursor: string | null;
            /** @description true when Redis was unavailable: zeros, or what Postgres knows */
            degraded: boolean;
        };
        NewStreamItem: {
            /** @description Item time in ms since the epoch; default now */
            at?: number;
            /**
             * @description Item id: repeating it records the item once
             * @example 42
             */
            itemId?: string;
            /** @default 99 */
            cap?: number;
            alert?: components["schemas"]["PushAlert"];
            /**
             * @description The item's author: every other member not online gets a push
             * @example 42
             */
            from?: string;
        };
        NewDirectMessages: {
            /** @example 42 */
            from: string;
            /** @default 1 */
            count?: number;
            alert?: components["schemas"]["PushAlert"];
        };
        NewInboxMessage: {
            to: string[];
            /** @example system */
            type: string;
            title: string;
            content: string;
            alert?: components["schemas"]["PushAlert"];
        };
        InboxPage: {
            items: components["schemas"]["InboxMessage"][];
            nextCursor: string | null;
        };
        InboxMessage: {
            /** @example 42 */
            id: string;
            type: string;
            title: string;
            content: string;
            /** Format: date-time */
            createdAt: string;
            read: boolean;
        };
        Badges: {
            cap: number;
            /** @description true when Redis was unavailable: zeros, or Postgres-backed values (broadcasts, inbox) */
            degraded: boolean;
            notifications: {
                /**
                 * @example {
                 *       "reply": {
                 *         "count": 3,
                 *         "capped": false
                 *       }
                 *     }
                 */
                byType: {
                    [key: string]: components["schemas"]["CappedCount"];
                };
                total: components["schemas"]["CappedCount"];
            };
            broadcasts: components["schemas"]["CappedCount"];
            reddots: {
                [key: string]: boolean;
            };
            authors: components["schemas"]["CappedCount"];
            streams: {
                total: components["schemas"]["CappedCount"];
                /**
                 * @description Streams with unread items; once the total passes `cap` the remaining streams are not counted
                 * @example {
                 *       "reply": {
                 *         "count": 3,
                 *         "capped": false
                 *       }
                 *     }
                 */
                byStream: {
                    [key: string]: components["schemas"]["CappedCount"];
                };
            };
            dms: components["schemas"]["CappedCount"];
            inbox: {
                /**
                 * @example {
                 *       "reply": {
                 *         "count": 3,
                 *         "capped": false
                 *       }
                 *     }
                 */
                byType: {
                    [key: string]: components["schemas"]["CappedCount"];
                };
                total: components["schemas"]["CappedCount"];
            };
            feed: components["schemas"]["CappedCount"] & unknown;
        };
        CappedCount: {
            count: number;
            capped: boolean;
        };
        Counters: {
            /**
             * @example post
             * @enum {string}
             */
            entity: "user" | "post" | "group";
            /** @description true when Redis was unreachable: Postgres values, missing the last minute of increments */
            stale: boolean;
            items: {
                /** @example 42 */
                id: string;
                /**
                 * @example {
                 *       "views": 120,
                 *       "comments": 4,
                 *       "likes": 17,
                 *       "favorites": 2,
                 *       "forwards": 1
                 *     }
                 */
                counts: {
                    [key: string]: number;
                };
            }[];
        };
        CounterIncrement: {
            /** @enum {string} */
            entity: "user" | "post" | "group";
            /** @example 42 */
            id: string;
            deltas: {
                [key: string]: number;
            };
            /** @description Every counter of the entity after this call (also on a replay: as it is now), returned by the increment itself (no extra command or round trip). Absent when the entity is not cached in Redis (not read for 12 h) or Redis was down: its next read includes this write. */
            counts?: {
                [key: string]: number;
            };
        };
        CounterDeltas: {
            /**
             * @description Field → integer delta (|delta| ≤ 1000000000); fields per entity: user: followers, following, posts, comments, likes_received, coins, groups; post: views, comments, likes, favorites, forwards; group: subscribers, posts, featured
             * @example {
             *       "comments": 1,
             *       "coins": -5
             *     }
             */
            deltas: {
                [key: string]: number;
            };
        };
        ReactionChange: {
            /** @example 42 */
            postId: string;
            /** @example 42 */
            userId: string;
            liked?: boolean;
            favorited?: boolean;
            changed: boolean;
            /** @description Every counter of the post after this call, from Redis (not the edge copy): reported by the increment the change ran, or read afterwards when nothing changed or the post was not cached in Redis (that read warms it) */
            counts?: {
                [key: string]: number;
            };
        };
        ViewCounted: {
            /** @example 42 */
            postId: string;
            /** @enum {boolean} */
            counted: true;
        };
        ReconcileReport: {
            scanned: number;
            drifted: number;
            /** @description The first 100 drifted counters */
            drift: {
                /** @enum {string} */
                entity: "user" | "post" | "group";
                /** @example 42 */
                id: string;
                field: string;
                counted: number;
                expected: number;
            }[];
            next: {
                /** @enum {string} */
                entity: "user" | "post" | "group";
                /** @example 42 */
                after: string;
            } | null;
        };
        LiveSession: {
            roomId: string;
            /** @example 42 */
            sessionId: string;
            /** @example 42 */
            hostId: string;
            /**
             * @description The room's owner: the host of its first session, unless a service or an admin assigned another
             * @example 42
             */
            ownerId: string;
            shards: number;
            /**
             * @description Where the room's objects were placed when it was created (a Durable Objects location hint): its first session's choice; null when none was given
             * @enum {string|null}
             */
            location: "wnam" | "enam" | "sam" | "weur" | "eeur" | "apac" | "oc" | "afr" | "me" | null;
            /** Format: date-time */
            startedAt: string;
            /** Format: date-time */
            endedAt: string | null;
        };
        NewLiveSession: {
            /** @example 42 */
            hostId: string;
            /**
             * @description Services and admins: make hostId the room's owner (a room nobody owns is owned by its first host anyway)
             * @default false
             */
            assignOwner?: boolean;
            /**
             * @description Objects to spread a big room over (by user id)
             * @default 1
             */
            shards?: number;
            /**
             * @description Where to create the room if this start creates it (a Durable Objects location hint); by default the region of the caller's continent. A room stays where it was created
             * @enum {string}
             */
            locationHint?: "wnam" | "enam" | "sam" | "weur" | "eeur" | "apac" | "oc" | "afr" | "me";
        };
        LivePresence: {
            roomId: string;
            /** @example 42 */
            userId: string;
            online: boolean;
            isFan?: boolean;
            joined?: boolean;
            left?: boolean;
            /** @example 42 */
            sessionId?: string;
        };
        LiveCountsList: {
            items: components["schemas"]["LiveCounts"][];
        };
        LiveCounts: {
            roomId: string;
            viewers: number;
            onlineFans: number;
            /** @example 42 */
            sessionId: string | null;
            live: boolean;
        };
        LiveFansPage: {
            items: components["schemas"]["LiveUser"][];
            nextCursor: string | null;
        };
        LiveUser: {
            /** @example 42 */
            userId: string;
        };
        LiveViewer: {
            roomId: string;
            /** @example 42 */
            userId: string;
            online: boolean;
            isFan: boolean;
            /** Format: date-time */
            joinedAt: string | null;
        };
        LiveJoinedFans: {
            roomId: string;
            /** Format: date-time */
            from: string;
            /** Format: date-time */
            to: string;
            fans: number;
        };
        LiveLoyalFans: {
            roomId: string;
            /** @enum {string} */
            mode: "all" | "any";
            sessionIds: string[];
            count: number;
            /** @description A page of fan ids: the room's owner, services and admins only (null otherwise) */
            items: components["schemas"]["LiveUser"][] | null;
            nextCursor: string | null;
        };
        FeedPage: {
            items: components["schemas"]["FeedItem"][];
            nextCursor: string | null;
            /** @description true when a backing service was down: from Postgres alone (Redis down: counters may lag by what Redis buffers) or from Redis alone (Postgres down: posts not cached are left out) */
            degraded: boolean;
        };
        FeedItem: {
            post: {
                /** @example 42 */
                id: string;
                /** @example 42 */
                authorId: string;
                text: string;
                /** Format: date-time */
                createdAt: string;
            };
            counts: {
                likes: number;
                comments: number;
                forwards: number;
                views: number;
                favorites: number;
            };
            /** @description The caller likes this post */
            liked: boolean;
            /** @description The caller favourited this post */
            favorited: boolean;
        };
        DeviceRegistered: {
            device: components["schemas"]["Device"];
            /** @description true when this endpoint/token was registered by another user, whose device it no longer is */
            moved: boolean;
            /**
             * @description Device ids of this user dropped to stay within 20 (the oldest registrations)
             * @example []
             */
            evicted: string[];
        };
        Device: (components["schemas"]["WebPushDeviceRegistration"] & {
            deviceId: string;
            registeredAt: string;
        }) | (components["schemas"]["FcmDeviceRegistration"] & {
            deviceId: string;
            registeredAt: string;
        }) | (components["schemas"]["ApnsDeviceRegistration"] & {
            deviceId: string;
            registeredAt: string;
        });
        /** @description A browser's PushSubscription (`subscription.toJSON()` plus `kind`) */
        WebPushDeviceRegistration: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            kind: "webpush";
            /**
             * @description The PushSubscription's endpoint: https on a browser push service's host (WEBPUSH_ALLOWED_HOSTS; the local push services too where ENVIRONMENT=development)
             * @example https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bH…
             */
            endpoint: string;
            keys: {
                /** @example BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4 */
                p256dh: string;
                /** @example BTBZMqHH6r4Tts7J_aSIgg */
                auth: string;
            };
        };
        FcmDeviceRegistration: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            kind: "fcm";
            /** @example fMz3Jq0wR6yQhQq8Wb4xcT:APA91bE7kqkWlX7mZc0yq3nS5cG2mJ8vK1dR4tY6uI9oP0aS3dF5gH7jK9lZ1xC3vB5nM7qW9eR1tY3uI5oP7aS9dF1gH3jK5lZ7xC9vB1nM3qW5eR7tY9uI1oP3aS5dF7gH9jK */
            token: string;
        };
        ApnsDeviceRegistration: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            kind: "apns";
            /** @example 5f0c8a3b4e6d7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081 */
            token: string;
            /**
             * @description Which APNs the token belongs to: sandbox for development builds
             * @enum {string}
             */
            environment: "production" | "sandbox";
            /**
             * @description The app's bundle id (apns-topic)
             * @example com.example.community
             */
            topic: string;
        };
        DeviceRegistration: components["schemas"]["WebPushDeviceRegistration"] | components["schemas"]["FcmDeviceRegistration"] | components["schemas"]["ApnsDeviceRegistration"];
        DeviceList: {
            /** @description Newest registration first, at most 20 */
            items: components["schemas"]["Device"][];
        };
        DeviceDeleted: {
            deviceId: string;
            /** @description false when the caller had no device by that id */
            deleted: boolean;
        };
        WebPushKey: {
            /**
             * @description base64url, 65-byte uncompressed P-256 point
             * @example BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8
             */
            publicKey: string;
        };
        NotificationPreferences: {
            /**
             * @description Pushes of each kind on or off (absent: on). `author` pushes only ever come from the authors the user chose (`/v1/me/notification-authors`); `author: false` silences them all and keeps the choices
             * @default {}
             * @example {
             *       "dm": true,
             *       "broadcast": false
             *     }
             */
            kinds?: {
                notification?: boolean;
                dm?: boolean;
                inbox?: boolean;
                stream?: boolean;
                author?: boolean;
                broadcast?: boolean;
            };
            /**
             * @description Notification types on or off (absent: on)
             * @default {}
             * @example {
             *       "like": false
             *     }
             */
            types?: {
                reply?: boolean;
                like?: boolean;
                mention?: boolean;
                follow?: boolean;
                comment?: boolean;
                repost?: boolean;
                system?: boolean;
            };
            /**
             * @description Who may reach the user by a push for a direct message or a mention: everyone, people they follow (`followed`), their `followers`, or `none`
             * @default {
             *       "dm": "everyone",
             *       "mention": "everyone"
             *     }
             */
            policy?: {
                /**
                 * @default everyone
                 * @enum {string}
                 */
                dm?: "everyone" | "followed" | "followers" | "none";
                /**
                 * @default everyone
                 * @enum {string}
                 */
                mention?: "everyone" | "followed" | "followers" | "none";
            };
            /**
             * @description Pushes are held from `start` to `end` (local time in `timeZone`; may cross midnight) and sent when the hours end, except kinds listed in `urgent`
             * @default null
             * @example {
             *       "start": "22:00",
             *       "end": "07:00",
             *       "timeZone": "Europe/Paris",
             *       "urgent": [
             *         "dm"
             *       ]
             *     }
             */
            quietHours?: {
                start: string;
                end: string;
                timeZone: string;
                /** @default [] */
                urgent?: ("notification" | "dm" | "inbox" | "stream" | "author" | "broadcast")[];
            } | null;
        };
        NotificationAuthorList: {
            /** @description Newest choice first, at most 100; only authors the caller still follows */
            items: components["schemas"]["NotificationAuthor"][];
        };
        NotificationAuthor: {
            /** @example 42 */
            authorId: string;
            /**
             * Format: date-time
             * @example 2026-05-01T20:00:00.000Z
             */
            chosenAt: string;
        };
        NotificationAuthorChange: {
            /** @example 42 */
            authorId: string;
            /** @description Whether the author's posts notify the caller after this call */
            chosen: boolean;
            /** @description Whether this call changed it */
            changed: boolean;
        };
        BlockChange: components["schemas"]["Block"] & {
            /** @description Whether this call changed anything */
            changed: boolean;
        };
        Block: {
            /** @example 42 */
            userId: string;
            /** Format: date-time */
            createdAt: string;
        };
        Unblock: {
            /** @example 42 */
            userId: string;
            /** @enum {boolean} */
            blocked: false;
            /** @description Whether this call changed anything */
            changed: boolean;
        };
        BlocksPage: {
            items: components["schemas"]["Block"][];
            nextCursor: string | null;
        };
        MuteChange: components["schemas"]["Mute"] & {
            /** @description Whether this call changed anything */
            changed: boolean;
        };
        Mute: {
            /** @example 42 */
            userId: string;
            /** @description The mute silences the user's notifications and DMs too */
            notifications: boolean;
            /**
             * Format: date-time
             * @description When the mute ends by itself; null: until unmuted
             */
            expiresAt: string | null;
            /** Format: date-time */
            createdAt: string;
        };
        NewMute: {
            /**
             * @description Also silence their notifications and DMs (counted and pushed nothing)
             * @default true
             */
            notifications?: boolean;
            /** @description End the mute by itself after this long; without it the mute lasts until unmuted */
            durationSeconds?: number;
        };
        Unmute: {
            /** @example 42 */
            userId: string;
            /** @enum {boolean} */
            muted: false;
            /** @description Whether this call changed anything */
            changed: boolean;
        };
        MutesPage: {
            items: components["schemas"]["Mute"][];
            nextCursor: string | null;
        };
        DeletionStarted: {
            /** @example 42 */
            deletionId: string;
            /** @enum {string} */
            status: "running";
        };
        DeletionConfirm: {
            /**
             * @description The caller's own user id: a stray call cannot delete an account
             * @example 42
             */
            confirm: string;
        };
        Deletion: {
            /** @example 42 */
            deletionId: string;
            /** @example 42 */
            userId: string;
            /** @enum {string} */
            status: "running" | "finished";
            /** Format: date-time */
            askedAt: string;
            /** Format: date-time */
            finishedAt: string | null;
            progress: {
                capability: string;
                removed: number;
                done: boolean;
            }[];
        };
        DeletionList: {
            items: components["schemas"]["Deletion"][];
        };
        ReportReceipt: {
            /** @example 42 */
            id: string;
            /** @example 42 */
            userId: string;
            /**
             * @description The open report's category (its first report's)
             * @enum {string}
             */
            category: "spam" | "harassment" | "hate" | "violence" | "sexual" | "illegal" | "other";
            /** @description Every post the open report names so far */
            postIds: string[];
            /** @enum {string} */
            status: "open";
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        NewReport: {
            /**
             * @description The user reported
             * @example 42
             */
            userId: string;
            /**
             * @description Up to 20 of that user's posts
             * @default []
             */
            postIds?: string[];
            /** @enum {string} */
            category: "spam" | "harassment" | "hate" | "violence" | "sexual" | "illegal" | "other";
            /** @default  */
            comment?: string;
        };
        ReportsPage: {
            items: components["schemas"]["Report"][];
            nextCursor: string | null;
        };
        Report: {
            /** @example 42 */
            id: string;
            /** @enum {string} */
            status: "open" | "resolved";
            /**
             * @description null: an automatic report (a post the term filter held), or a reporter whose account was deleted (`reporterErased`)
             * @example 42
             */
            reporterId: string | null;
            /** @description The reporter deleted their account: the report stays, without them */
            reporterErased: boolean;
            /**
             * @description The user reported
             * @example 42
             */
            userId: string;
            /** @enum {string} */
            category: "spam" | "harassment" | "hate" | "violence" | "sexual" | "illegal" | "other";
            comment: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description Since the report was opened */
            ageSeconds: number;
            /** Format: date-time */
            resolvedAt: string | null;
            /**
             * @description The action that resolved it, or `account-deleted`: the reported user deleted their account while it was open
             * @enum {string|null}
             */
            resolution: "dismiss" | "remove-posts" | "suspend" | "approve" | "account-deleted" | null;
            posts: {
                /** @example 42 */
                postId: string;
                /** @description The text as it was when reported (empty once the author deleted their account, unless the report was resolved by `remove-posts` or `suspend`) */
                text: string;
                /** Format: date-time */
                reportedAt: string;
                /**
                 * @description The post now: shown, held by the term filter, or deleted
                 * @enum {string}
                 */
                state: "live" | "held" | "deleted";
            }[];
            /** @description Every operator action, oldest first */
            actions: {
                /** @enum {string} */
                action: "dismiss" | "remove-posts" | "suspend" | "approve";
                /**
                 * @description null: the operator's account was deleted
                 * @example 42
                 */
                actorId: string | null;
                note: string;
                /** Format: date-time */
                at: string;
            }[];
        };
        ReportAction: {
            /** @enum {string} */
            action: "dismiss" | "remove-posts" | "suspend" | "approve";
            /** @default  */
            note?: string;
        };
        Suspension: {
            /** @example 42 */
            userId: string;
            suspended: boolean;
            reason: string | null;
            /** Format: date-time */
            suspendedAt: string | null;
            /** @description Whether this call changed anything */
            changed: boolean;
        };
        NewSuspension: {
            reason: string;
        };
        ModerationTerms: {
            terms: string[];
            /** @description Grows with every PUT; 0 before the first */
            version: number;
            /** Format: date-time */
            updatedAt: string | null;
        };
        NewModerationTerms: {
            terms: string[];
        };
        OperationsStatus: {
            /**
             * Format: date-time
             * @description When this answer was read (the Worker's clock)
             */
            at: string;
            dependencies: {
                /** @description One entry per Redis database (Upstash REST), in index order: PING, timed, then its status script; one down or past its command budget is `ok: false` and the others still show */
                redis: {
                    /** @description `postgres`; for Redis `default` (the one database of a single-database deployment) or `db0` … `db{N-1}` (UPSTASH_REDIS_DATABASES, in its order) */
                    name: string;
                    /** @description The probe and the status read both answered */
                    ok: boolean;
                    /** @description Round trip of one cheap call: PING (Redis), SELECT 1 (Postgres) */
                    latencyMs: number;
                    error?: string;
                    /** @description The database's index in the setting (0 … N − 1; database 0 also holds the operations keys) */
                    index: number;
                }[];
                /** @description Postgres through the Neon driver: SELECT 1, timed */
                postgres: {
                    /** @description `postgres`; for Redis `default` (the one database of a single-database deployment) or `db0` … `db{N-1}` (UPSTASH_REDIS_DATABASES, in its order) */
                    name: string;
                    /** @description The probe and the status read both answered */
                    ok: boolean;
                    /** @description Round trip of one cheap call: PING (Redis), SELECT 1 (Postgres) */
                    latencyMs: number;
                    error?: string;
                };
            };
            counters: {
                /** @description Counter fields with deltas since the last cut: HLEN of Redis `ctr:pending`, summed over the databases that answered (null when none did) */
                pendingFields: number | null;
                /** @description Cut batches not yet applied to Postgres: ZCARD of Redis `ctr:batches`, summed over the databases that answered */
                unappliedBatches: number | null;
                /** @description The unapplied batch with the worst lag over all databases: lowest number in its database's `ctr:batches`, and when the flush cut it */
                oldestUnappliedBatch: {
                    batch: string;
                    /**
                     * Format: date-time
                     * @description Field `@cut` of the batch hash, written by the cut
                     */
                    cutAt: string | null;
                    /** @description The database it waits on */
                    database: number;
                } | null;
                /** @description The worst flush lag over the databases that answered: age of the oldest unapplied batch (now − its `@cut`); 0 when none waits. The flush runs every minute: normal is 0 or under 60 000 */
                flushLagMs: number | null;
                /** @description The same figures per Redis database, in index order: each has its own pending hash, batch numbers and cut (one status script call each) */
                databases: {
                    index: number;
                    /** @description Its PING and status script answered (as `dependencies.redis`); its figures are null otherwise */
                    ok: boolean;
                    /** @description HLEN of this database's `ctr:pending` */
                    pendingFields: number | null;
                    /** @description ZCARD of this database's `ctr:batches` */
                    unappliedBatches: number | null;
                    /** @description Lowest number in this database's `ctr:batches` and when its flush cut it */
                    oldestUnappliedBatch: {
                        batch: string;
                        /**
                         * Format: date-time
                         * @description Field `@cut` of the batch hash, written by the cut
                         */
                        cutAt: string | null;
                    } | null;
                    /** @description Age of this database's oldest unapplied batch; 0 when none waits */
                    flushLagMs: number | null;
                }[];
                /** @description The last flush run, recorded by the flush cron in Redis `ops:runs` field `counters:flush` (batches applied, deltas merged into them, Postgres statements, batches left) */
                lastFlush: {
                    at: string;
                    durationMs: number;
                    /** @enum {string} */
                    outcome: "ok" | "error";
                    ageMs: number;
                    cut?: number | null;
                    batches?: number;
                    deltas?: number;
                    statements?: number;
                    remaining?: number;
                    error?: string;
                } | null;
                reconcile: {
                    /** @description A pass is running: Redis `ctr:reconcile:cursor` exists */
                    running: boolean;
                    /** @description Where the running pass continues (the cursor) */
                    position: {
                        entity: string;
                        after: string;
                    } | null;
                    /**
                     * Format: date-time
                     * @description When the running pass started (the cursor)
                     */
                    startedAt: string | null;
                    /** @description Counters the running pass corrected so far (the cursor) */
                    correctedSoFar: number | null;
                    /** @description The last finished pass, recorded by the slice that finished it (`ops:runs` field `counters:reconcile`) */
                    lastPass: {
                        startedAt: string | null;
                        finishedAt: string;
                        corrected: number;
                    } | null;
                };
            };
            feed: {
                /** @description Dead letters waiting, per source queue: count of Postgres `dead_letters` by queue */
                deadLetters: {
                    [key: string]: number;
                } | null;
                /** @description Their sum */
                deadLettersTotal: number | null;
                /**
                 * Format: date-time
                 * @description When the oldest waiting dead letter died (`dead_letters.died_at`)
                 */
                oldestDeadLetterAt: string | null;
                /** @description Accounts pulled instead of pushed, and those in transition: Postgres `feed_big_accounts` by state */
                bigAccounts: {
                    big: number;
                    toBig: number;
                    toNormal: number;
                } | null;
                /** @description The last 100 fan-outs, publish → the last page (the author's oldest followers) in their timelines: Redis stream `ops:fanouts`, one XADD per completed fan-out */
                fanouts: {
                    samples: number;
                    /** @description Median publish → last page delivered */
                    p50Ms: number | null;
                    /** @description 99th percentile */
                    p99Ms: number | null;
                    /** @description Slowest */
                    maxMs: number | null;
                    /**
                     * Format: date-time
                     * @description When the newest sample was recorded
                     */
                    lastAt: string | null;
                };
            };
            /** @description The live badge hubs, each asked for its own figures */
            badgesPush: {
                /** @description Badge hub shards (BADGE_HUB_SHARDS) */
                hubs: number;
                hubsAnswered: number;
                hubsFailed: number;
                /** @description Live badge sockets: each hub's own count (`stats()`, one call per shard), summed */
                socketsOpen: number;
                /** @description Distinct users with a socket, summed over hubs */
                usersOnline: number;
            };
            notify: {
                /** @description The newest push broadcasts (at most 5), newest first: Redis `ops:broadcasts` and each one's `ops:broadcast:{id}` (7 days), written by the notify-send consumer once per page and per queue batch */
                broadcasts: {
                    /** @example 42 */
                    id: string;
                    /**
                     * @description `done` once the last page ran and every queued device had its last verdict
                     * @enum {string}
                     */
                    state: "running" | "done";
                    /** @description Counted by the consumer as it carries each device's verdict out */
                    devices: {
                        /** @description Web Push and APNs devices (FCM too when there is no broadcast topic) of the users whose push a page queued */
                        queued: number;
                        /** @description Delivered */
                        sent: number;
                        /** @description Dead letters (refused, or out of attempts) */
                        failed: number;
                        /** @description Gone (404/410, UNREGISTERED, Unregistered): deleted */
                        dropped: number;
                        /** @description Queued and not settled yet (waiting, retrying, held by quiet hours) */
                        pending: number;
                        retries: number;
                    };
                    users: {
                        paged: number;
                        /** @description Offline, preferences allowing, with a device of the paged kinds */
                        queued: number;
                        /** @description Users with a device when the first page ran */
                        total: number | null;
                    };
                    pages: {
                        done: number;
                        /** @description Roughly: from the users with a device when it started */
                        total: number | null;
                        /** @description The last user id paged */
                        cursor: string | null;
                    };
                    /** @description The one FCM topic send, when FCM has a broadcast topic */
                    topic: {
                        name: string;
                        sentAt: string | null;
                        error: string | null;
                    } | null;
                    startedAt: string | null;
                    /** @description When the last page ran (every push queued) */
                    pagedAt: string | null;
                    finishedAt: string | null;
                    lastAt: string | null;
                    /** @description Devices settled per second, from the start to the last update */
                    devicesPerSecond: number | null;
                }[];
            };
            liveRooms: {
                /** @description Rooms whose last session started in the last 6 hours: Postgres `live_session_starts`, written at session start */
                startedLast6h: number | null;
                /** @description The 10 largest live audiences, as the per-minute cron asked those rooms (`ops:runs` field `live:rooms`) */
                largest: {
                    roomId: string;
                    viewers: number;
                    onlineFans: number;
                }[];
                /**
                 * Format: date-time
                 * @description When the cron asked them
                 */
                asOf: string | null;
                /** @description Rooms the cron asked (the 100 most recently started at most) */
                asked: number;
                /** @description Of those, rooms with a live session */
                live: number;
            };
            reports: {
                /** @description Open reports waiting for an operator: Postgres `safety_reports` with status open (users' reports and posts the term filter held) */
                open: number | null;
                /**
                 * Format: date-time
                 * @description When the oldest open report was opened
                 */
                oldestOpenAt: string | null;
                /** @description Its age; 0 when none is open. The app stores expect action within 24 hours: amber past 12 h, red past 24 h */
                oldestOpenAgeMs: number | null;
            };
            /** @description Each cron job's last run, recorded by the job itself in Redis `ops:runs` field `cron:{job}` (one HSET per run) */
            cron: {
                [key: string]: {
                    schedule: string;
                    lastRun: {
                        startedAt?: string;
                        durationMs?: number;
                        /** @enum {string} */
                        outcome?: "ok" | "error";
                        tasks?: {
                            name: string;
                            ok: boolean;
                            durationMs: number;
                            error?: string;
                        }[];
                    } | null;
                };
            };
        };
        OperationsStatusHistory: {
            /** @description The span asked for */
            minutes: number;
            /**
             * @description One point a minute
             * @example 60000
             */
            stepMs: number;
            /** @description Oldest first, at most one a minute and 1440 (24 hours). A minute with no point: the cron did not run (or could not record); a null figure: its source did not answer then. Badge sockets are not sampled (that would wake every hub each minute). */
            points: {
                /**
                 * Format: date-time
                 * @description The point's minute (the flush cron run that sampled it)
                 */
                at: string;
                /** @description As `counters.flushLagMs` of the status, then (the worst database's) */
                flushLagMs: number | null;
                /** @description As `counters.pendingFields`, then (after that minute's flush: normally 0 or a few seconds' increments) */
                pendingFields: number | null;
                /** @description As `counters.unappliedBatches`, then */
                unappliedBatches: number | null;
                /** @description As `feed.fanouts.p99Ms`, then (the last 100 fan-outs then) */
                fanoutP99Ms: number | null;
                /** @description As `feed.deadLettersTotal`, then */
                deadLetters: number | null;
            }[];
        };
        DeadLetterPage: {
            items: components["schemas"]["DeadLetter"][];
            nextCursor: string | null;
        };
        DeadLetter: {
            /** @example 42 */
            id: string;
            /**
             * @description The queue it came from and is replayed to
             * @example feed-fanout
             */
            queue: string;
            /**
             * @description The message as it was sent
             * @example {
             *       "kind": "fanout",
             *       "op": "add",
             *       "postId": "42",
             *       "authorId": "7",
             *       "after": null
             *     }
             */
            body?: unknown;
            /** Format: date-time */
            diedAt: string;
            /** @description The error of its last delivery attempt */
            lastError: string | null;
        };
        DeadLetterReplayResult: {
            replayed: number;
            ids: string[];
            more: boolean;
        };
        /**
         * @example {
         *       "ids": [
         *         "12",
         *         "13"
         *       ]
         *     }
         */
        DeadLetterReplay: {
            /** @description Dead letters to replay (at most 100) */
            ids: string[];
        } | {
            /**
             * @description Replay the oldest 100 of this queue
             * @enum {string}
             */
            queue: "feed-fanout" | "feed-follow-sync" | "notify-send";
        };
        DeadLetterDiscarded: {
            /** @example 42 */
            id: string;
            /** @enum {boolean} */
            discarded: true;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
