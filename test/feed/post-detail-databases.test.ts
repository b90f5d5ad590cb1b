/** A post's detail from the feed's caches at N = 3: the post's entry and counters on its database, the reader's flags and safety sets on theirs. */
import { describeAtN3 } from "../support/databases";
import { postDetailTests } from "./post-detail";

describeAtN3("GET /v1/posts/{id} from the feed's caches, N = 3", postDetailTests);
