/**
 * Model-based test of the buffered counters: seeded random interleavings of increments, reads,
 * flushes, flushes killed after each step, and cache expiry/eviction (DEL of cache keys), with
 * every read checked against an in-memory model after every step. Domain functions are called
 * directly (the same code the routes and the cron run) so a flush can be stopped between steps.
 *
 * It runs at N = 1 (test/counters/model.test.ts) and at N = 3 (model-databases.test.ts, in the
 * Worker bound to the test stack's three Redis databases), where the entities are spread over all
 * three databases, each with its own pending hash, batches and watermark.
 *
 * With `REDIS_READ_REGIONS` on in the services' env, reads of entities not cached answer from a
 * read-only script and send their warm after the answer (`waitUntil`): those warms are left
 * running into the steps that follow (increments, flushes, expiry race them), some steps wait for
 * them first, and the run waits for all of them before its last checks.
 */
import { expect, it } from "vitest";
import { completeSnapshot, incrementCounters, readCounters } from "../../src/counters/counters";
import { flushAll, flushOnce, type FlushStep } from "../../src/counters/flush";
import { counterKeys } from "../../src/counters/keys";
import { type CounterEntity, fieldsOf } from "../../src/counters/registry";
import { queryRows, readSnapshot } from "../../src/counters/store";
import { ConsistencyScope, readRegionsOn, runInScope } from "../../src/lib/consistency";
import { groupByDatabase } from "../../src/lib/redis-topology";
import type { Env } from "../../src/env";
import type { Services } from "../../src/lib/services";
import { newIdOn } from "../support/databases";
import { prng } from "../support/prng";
import { servicesFor } from "./support";

/** Fields no relation derives, so a reconcile running in another test file leaves them alone. */
const MODEL_FIELDS: Record<CounterEntity, string[]> = { user: ["comments", "coins", "groups"], post: ["views", "comments", "forwards"], group: ["subscribers", "posts", "featured"] };

const STEPS: FlushStep[] = ["invalidate", "cut", "commit", "drop"];

/** Deletes cache entries, each on its entity's database (as a cache expiry or eviction there). */
async function dropCaches(services: Services, entity: CounterEntity, victims: readonly string[]) {
  for (const [index, list] of groupByDatabase(victims, (id) => id, services.databases)) {
    await services.redisAt(index).del(...list.map((id) => counterKeys.cache(entity, id)));
  }
}

export async function runSeed(seed: number, steps: number, requestServices: Services) {
  // With read regions the run is one client carrying its consistency token, as an app on
  // `community-edge/client` does: each call waits for the region to have the run's own writes
  // (on the far-region stack, TEST_FAR_REGION_MS, a replica really lags).
  if (readRegionsOn(requestServices.env)) return runInScope(new ConsistencyScope([]), () => runSteps(seed, steps, requestServices));
  return runSteps(seed, steps, requestServices);
}

async function runSteps(seed: number, steps: number, requestServices: Services) {
  const rnd = prng(seed);
  // The warms reads send after answering: running on their own, awaited where the model says.
  let background: Promise<unknown>[] = [];
  let warmsSent = 0;
  const services = Object.create(requestServices, { waitUntil: { value: (p: Promise<unknown>) => void (background.push(p), warmsSent++) } }) as Services;
  const landWarms = async () => {
    const landing = background;
    background = [];
    await Promise.all(landing);
  };
  const n = services.databases;
  // Spread over the databases: users on 0, 1, 2; posts on two of them; the group on a third.
  const ids: Record<CounterEntity, string[]> = {
    user: [newIdOn(0, n), newIdOn(1, n), newIdOn(2, n)],
    post: [newIdOn(seed, n), newIdOn(seed + 1, n)],
    group: [newIdOn(seed + 2, n)],
  };
  const entities = Object.keys(ids) as CounterEntity[];
  const model = new Map<string, number>(); // entity:id:field → true (unclamped) value
  const value = (e: CounterEntity, id: string, f: string) => model.get(`${e}:${id}:${f}`) ?? 0;
  const log: string[] = [];

  async function checkAll(when: string) {
    for (const entity of entities) {
      const read = await readCounters(services, entity, ids[entity]);
      for (const id of ids[entity]) {
        const want = fieldsOf(entity).map((f) => value(entity, id, f));
        expect(read.values.get(id), `seed ${seed} after ${when}; ${entity} ${id}\n${log.slice(-12).join("\n")}`).toEqual(want);
      }
    }
  }

  function randomDeltas() {
    const entity = rnd.pick(entities);
    const id = rnd.pick(ids[entity]);
    const fields = MODEL_FIELDS[entity];
    const n = rnd.int(1, 2);
    return Array.from({ length: n }, () => ({ entity, id, field: rnd.pick(fields), delta: rnd.int(-3, 5) || 1 }));
  }
  function applyToModel(deltas: { entity: CounterEntity; id: string; field: string; delta: number }[]) {
    for (const d of deltas) model.set(`${d.entity}:${d.id}:${d.field}`, value(d.entity, d.id, d.field) + d.delta);
  }

  for (let step = 0; step < steps; step++) {
    const roll = rnd.next();
    let what: string;
    if (roll < 0.4) {
      const deltas = randomDeltas();
      await incrementCounters(services, deltas);
      applyToModel(deltas);
      what = `increment ${JSON.stringify(deltas.map((d) => [d.entity, d.id.slice(-4), d.field, d.delta]))}`;
    } else if (roll < 0.55) {
      await flushOnce(services);
      what = "flush";
    } else if (roll < 0.7) {
      const stopAfter = rnd.pick(STEPS);
      await flushOnce(services, { stopAfter });
      what = `flush killed after ${stopAfter}`;
    } else if (roll < 0.82) {
      const entity = rnd.pick(entities);
      const victims = rnd.next() < 0.5 ? [rnd.pick(ids[entity])] : ids[entity];
      await dropCaches(services, entity, victims);
      what = `expire ${entity} ${victims.map((v) => v.slice(-4)).join(",")}`;
    } else if (roll < 0.92) {
      // A flush racing cache misses and an increment: the warm must not lose or double a batch.
      const entity = rnd.pick(entities);
      await dropCaches(services, entity, ids[entity]);
      const deltas = randomDeltas();
      await Promise.all([flushOnce(services), readCounters(services, entity, ids[entity]), incrementCounters(services, deltas), flushOnce(services)]);
      applyToModel(deltas);
      what = `race flush/warm/increment on ${entity}`;
    } else if (roll < 0.96) {
      // The warm's worst case, made deterministic: its Postgres snapshot is taken, then a batch above
      // that watermark is applied and dropped before its script runs. It must refuse, caching nothing.
      const entity = rnd.pick(entities);
      await dropCaches(services, entity, ids[entity]);
      const snapshot = await readSnapshot(services.db, entity, ids[entity], [...groupByDatabase(ids[entity], (id) => id, n).keys()]);
      const deltas = randomDeltas().map((d) => ({ ...d, entity, id: rnd.pick(ids[entity]), field: MODEL_FIELDS[entity][0]! }));
      await incrementCounters(services, deltas);
      applyToModel(deltas);
      await flushAll(services);
      const warmed = await completeSnapshot(services, entity, ids[entity], snapshot, "warm");
      expect(warmed, `seed ${seed}: a warm from a snapshot older than an applied batch must refuse`).toBeNull();
      what = `stale warm refused on ${entity}`;
    } else if (roll < 0.98) {
      // Redis lost the batch sequence (a restart without persistence loses it with everything else):
      // the next cut continues from Postgres' watermark instead of reusing applied batch numbers.
      await services.redisAt(n === 1 ? 0 : rnd.int(0, n - 1)).del(counterKeys.batchSeq());
      const deltas = randomDeltas();
      await incrementCounters(services, deltas);
      applyToModel(deltas);
      await flushOnce(services);
      what = "batch sequence lost, then increment and flush";
    } else {
      // Two flushes at once, one of them killed after its commit.
      await Promise.all([flushOnce(services), flushOnce(services, { stopAfter: "commit" })]);
      what = "concurrent flushes";
    }
    if (background.length > 0 && rnd.next() < 0.3) {
      await landWarms();
      what += ", then the reads' warms landed";
    }
    log.push(`${step}: ${what}`);
    await checkAll(what);
  }
  await landWarms();
  await checkAll("every warm landed");
  if (readRegionsOn(services.env)) expect(warmsSent, "reads answered near and warmed after answering").toBeGreaterThan(0);

  // Everything flushed: Postgres alone holds the model's numbers.
  let rows: { key: string; value: string }[] = [];
  const all = entities.flatMap((e) => ids[e].map((id) => [e, id] as const));
  const want = Object.fromEntries(all.flatMap(([e, id]) => fieldsOf(e).map((f) => [`${e}:${id}:${f}`, value(e, id, f)] as const)).filter(([, v]) => v !== 0));
  for (let attempt = 0; attempt < 10; attempt++) {
    await flushAll(services);
    rows = await queryRows(
      services.db,
      "SELECT entity || ':' || entity_id || ':' || field AS key, value::text AS value FROM counters WHERE entity_id = ANY($1::bigint[]) AND value <> 0",
      [all.map(([, id]) => id)],
    );
    if (rows.length === Object.keys(want).length && rows.every((r) => want[r.key] === Number(r.value))) break;
  }
  expect(Object.fromEntries(rows.map((r) => [r.key, Number(r.value)])), `seed ${seed}: Postgres after a full flush`).toEqual(want);
}


/**
 * The model's runs, as `describe` blocks of `describeBlock` (vitest's `describe`, or
 * `describeAtN3`): seeds 1–6 as a single-region deployment, then seeds with read regions on.
 * `databases`: the number the services must have (checked before each run).
 */
export function describeModelRuns(
  describeBlock: (name: string, body: () => void) => void,
  what: string,
  options: { databases: number; readRegionSeeds: number[]; timeoutMs: number },
) {
  const runs: { name: string; env: Partial<Env>; seeds: number[] }[] = [
    { name: `${what} under random interleavings (model-based)`, env: {}, seeds: [1, 2, 3, 4, 5, 6] },
    { name: `${what}, reads answered by read regions (model-based)`, env: { REDIS_READ_REGIONS: "on" }, seeds: options.readRegionSeeds },
  ];
  for (const run of runs) {
    describeBlock(run.name, () => {
      for (const seed of run.seeds) {
        it(`seed ${seed}: every read equals the model after every step, and Postgres does after a full flush`, async () => {
          // One Postgres pool per test: a pool's sockets belong to the test that opened them.
          const { services, close } = servicesFor(run.env);
          try {
            expect(services.databases).toBe(options.databases);
            await runSeed(seed, 60, services);
          } finally {
            await close();
          }
        }, options.timeoutMs);
      }
    });
  }
}
