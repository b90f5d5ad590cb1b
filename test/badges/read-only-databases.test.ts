/** Badge reads near the user at N = 3, users on each database (test/badges/read-only-run.ts, the workers-n3 project). */
import { describeAtN3, newIdOn } from "../support/databases";
import { readOnlyBadges } from "./read-only-run";

describeAtN3("badge reads a read region answers over three Redis databases", () => {
  readOnlyBadges((i) => newIdOn(i, 3));
});
