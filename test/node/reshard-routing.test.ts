/**
 * The routing of a reshard (`src/lib/redis-topology.ts`): the table a reshard state installs, the
 * markers it accepts, and that no table at all is in the way once the deployment runs the new
 * number of databases. The reshard itself, against the test stack: test/counters/reshard.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  assertMarker,
  databaseOf,
  databaseOfSlot,
  databasesInUse,
  databasesInUseBy,
  DepartedDatabaseError,
  homeOfSlot,
  installedRouting,
  installRouting,
  movedAwayFrom,
  parseReshardState,
  type ReshardState,
  routingHomes,
  settleEveryDatabase,
  SLOT_COUNT,
  slotOf,
  TopologyError,
  topologyMarker,
  UNAVAILABLE_DATABASE,
} from "../../src/lib/redis-topology";
import { newId } from "../support/ids";

const state = (over: Partial<ReshardState>): ReshardState => ({ from: 2, to: 3, phase: "prepared", rev: 1, moving: [], moved: "0".repeat(SLOT_COUNT), updatedAt: 0, ...over });
const moved = (slots: number[]) => Array.from({ length: SLOT_COUNT }, (_, s) => (slots.includes(s) ? "1" : "0")).join("");

afterEach(() => {
  installRouting(2, null);
  installRouting(3, null);
});

describe("homeOfSlot", () => {
  it("is the old home until a slot moved, unavailable while it moves, the new home after", () => {
    expect(homeOfSlot(4, state({}), 3)).toBe(0); // 4 mod 2
    expect(homeOfSlot(4, state({ phase: "moving", moving: [4] }), 3)).toBe(UNAVAILABLE_DATABASE);
    expect(homeOfSlot(4, state({ phase: "moving", moved: moved([4]) }), 3)).toBe(1); // 4 mod 3
    expect(homeOfSlot(5, state({ phase: "done" }), 3)).toBe(2);
    // A setting that lacks the slot's home (the old 2-database one, once slots live on database 2): unavailable, never another database.
    expect(homeOfSlot(5, state({ phase: "done" }), 2)).toBe(UNAVAILABLE_DATABASE);
  });
});

describe("databaseOf under a reshard", () => {
  it("follows the installed table for the setting's size only, and the plain rule once done at that size", () => {
    const ids = Array.from({ length: 300 }, () => newId());
    const movingSlot = slotOf(ids.find((id) => databaseOfSlot(slotOf(id), 2) !== databaseOfSlot(slotOf(id), 3))!);
    installRouting(3, state({ phase: "moving", moving: [movingSlot], rev: 2 }));
    expect(installedRouting(3)).toEqual({ rev: 2, live: true });
    for (const id of ids) {
      const slot = slotOf(id);
      expect(databaseOf(id, 3), id).toBe(slot === movingSlot ? UNAVAILABLE_DATABASE : slot % 2);
      expect(databaseOf(id, 4), "another setting size is not routed by it").toBe(slot % 4);
    }
    installRouting(3, state({ phase: "done", rev: 3 }));
    expect(installedRouting(3)).toBeUndefined();
    for (const id of ids) expect(databaseOf(id, 3)).toBe(slotOf(id) % 3);
  });

  it("says whether a change took slots away from a database (then a request routed by the old table fails as an outage)", () => {
    installRouting(3, state({ rev: 1 }));
    const before = routingHomes(3);
    installRouting(3, state({ phase: "moving", moving: [4], rev: 2 })); // slot 4 leaves database 0
    expect(movedAwayFrom(0, before, 3)).toBe(true);
    expect(movedAwayFrom(1, before, 3)).toBe(false);
    const moving = routingHomes(3);
    installRouting(3, state({ phase: "moving", moved: moved([4]), rev: 3 })); // and arrives on database 1
    expect(movedAwayFrom(0, moving, 3)).toBe(false);
    expect(movedAwayFrom(1, moving, 3)).toBe(false);
  });
});

describe("every database of the deployment under a reshard", () => {
  it("is every database of the setting while a reshard is planned or running, and the first M once a shrink is done", () => {
    const shrink = (over: Partial<ReshardState>) => state({ from: 3, to: 2, ...over });
    expect(databasesInUseBy(null, 3)).toBe(3);
    expect(databasesInUseBy(shrink({}), 3)).toBe(3); // prepared: database 2 still holds owners
    expect(databasesInUseBy(shrink({ phase: "moving", moving: [2] }), 3)).toBe(3);
    expect(databasesInUseBy(shrink({ phase: "done" }), 3)).toBe(2); // the setting still lists the database it left
    expect(databasesInUseBy(shrink({ phase: "done" }), 2)).toBe(2);
    expect(databasesInUseBy(state({ phase: "done" }), 2)).toBe(2); // a grow done, the old setting still deployed
    expect(databasesInUseBy(state({ phase: "done" }), 3)).toBe(3);
    // Growing back: the plan from 2 to 3 takes database 2 in again from `prepared` on.
    expect(databasesInUseBy(state({ phase: "prepared" }), 3)).toBe(3);
  });

  it("settleEveryDatabase runs on the databases in use only, and leaves out one found to have left when called", async () => {
    installRouting(3, state({ from: 3, to: 2, phase: "done", rev: 4 }));
    expect(databasesInUse(3)).toBe(2);
    const called: number[] = [];
    const settled = await settleEveryDatabase(3, async (index) => (called.push(index), index));
    expect(called.sort()).toEqual([0, 1]);
    expect([...settled.keys()]).toEqual([0, 1]);
    installRouting(3, null);
    // An isolate that had not read the state yet calls all three; the one that left answers DepartedDatabaseError.
    const early = await settleEveryDatabase(3, async (index) => {
      if (index === 2) throw new DepartedDatabaseError(2, 2);
      if (index === 1) throw new Error("down");
      return index;
    });
    expect([...early.keys()]).toEqual([0, 1]);
    expect(early.get(1)!.status).toBe("rejected");
  });
});

describe("assertMarker with a reshard state", () => {
  const answer = (index: number, n: number) => [1, topologyMarker(index, n), ""];

  it("accepts the markers of either size for a setting of either size, and nothing else", () => {
    const s = state({});
    expect(() => assertMarker(answer(1, 2), 1, 3, s)).not.toThrow();
    expect(() => assertMarker(answer(2, 3), 2, 3, s)).not.toThrow();
    expect(() => assertMarker(answer(1, 2), 1, 2, s)).not.toThrow();
    expect(() => assertMarker(answer(0, 2), 1, 3, s)).toThrow(TopologyError); // reordered
    expect(() => assertMarker(answer(0, 2), 0, 4, s)).toThrow(/a reshard from 2 to 3 databases is running, but UPSTASH_REDIS_DATABASES lists 4/);
  });

  it("after a shrink is done, accepts the new markers with a setting that still lists the larger number", () => {
    const done = state({ from: 3, to: 2, phase: "done" });
    expect(() => assertMarker(answer(0, 2), 0, 3, done)).not.toThrow();
    expect(() => assertMarker(answer(1, 2), 1, 2, done)).not.toThrow();
    // Growing back: the plan from 2 to 3 recorded, database 2 joins with the marker of 3.
    const back = state({ from: 2, to: 3, phase: "prepared", rev: 9 });
    expect(() => assertMarker(answer(0, 2), 0, 3, back)).not.toThrow();
    expect(() => assertMarker(answer(2, 3), 2, 3, back)).not.toThrow();
  });

  it("without a state, refuses a changed number of databases as before", () => {
    expect(() => assertMarker(answer(0, 2), 0, 3)).toThrow(/the number of databases changed without a reshard/);
    expect(() => assertMarker([1, JSON.stringify({ index: 0, databases: 3, slots: 1024, version: 1 })], 0, 3)).not.toThrow(); // markers written before version 2
  });

  it("names an unreadable state", () => {
    expect(parseReshardState(null)).toBeNull();
    expect(() => parseReshardState("{")).toThrow(/unreadable reshard state/);
  });
});
