/** A post's detail from the feed's caches, at N = 1 (the shared tests: ./post-detail.ts). */
import { describe } from "vitest";
import { postDetailTests } from "./post-detail";

describe("GET /v1/posts/{id} from the feed's caches", postDetailTests);
