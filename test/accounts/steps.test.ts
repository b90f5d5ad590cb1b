/**
 * A deletion's steps as the queue may deliver them: twice (a crash after the step's record, before
 * its ack), a step that fails half way and is delivered again, one ahead of the record. Each is
 * recorded once, counts included, the chain goes on, and the last step ends the deletion and lets
 * the user in again. Run with erasers of the test's own and a queue that only records what is
 * sent, so nothing else runs the deletion meanwhile.
 */
import { describe, expect, it } from "vitest";
import { runEraseStep, startAccountDeletion } from "../../src/accounts/deletion";
import { accountKeys } from "../../src/accounts/keys";
import type { EraseMessage } from "../../src/accounts/messages";
import { loadDeletion } from "../../src/accounts/store";
import type { Env } from "../../src/env";
import type { Eraser } from "../../src/lib/erasers";
import { withServices } from "../counters/support";
import { newId } from "../support/api";

function recordingQueue() {
  const sent: { body: EraseMessage; delaySeconds?: number }[] = [];
  const queue = { send: async (body: EraseMessage, options?: { delaySeconds?: number }) => void sent.push({ body, ...(options?.delaySeconds ? { delaySeconds: options.delaySeconds } : {}) }) };
  return { sent, env: { ERASE_QUEUE: queue as unknown as Env["ERASE_QUEUE"] } };
}

describe("the steps of a deletion", () => {
  it("are recorded once however often delivered, resume after a failed step, and end the deletion", async () => {
    const user = newId();
    const calls: string[] = [];
    let failOnce = true;
    const erasers: Eraser[] = [
      { name: "a", step: async (_s, _u, cursor) => (calls.push(`a:${cursor}`), cursor === null ? { removed: 2, cursor: "x" } : { removed: 3, done: true }) },
      {
        name: "b",
        step: async () => {
          calls.push("b");
          if (failOnce) {
            failOnce = false;
            throw new Error("crashed half way");
          }
          return { removed: 1, done: true };
        },
      },
    ];
    const queue = recordingQueue();
    await withServices(queue.env, async (services) => {
      const { deletionId } = await startAccountDeletion(services, erasers, user);
      expect(queue.sent).toEqual([{ body: { kind: "erase-step", deletionId, step: 0 }, delaySeconds: 6 }]);
      expect(await services.redis.hget(accountKeys.deleting(), user)).toBe(Number(deletionId));
      const step = (n: number): EraseMessage => ({ kind: "erase-step", deletionId, step: n });

      expect(await runEraseStep(services, erasers, step(1))).toBe("early"); // ahead of the record: retried later
      expect(await runEraseStep(services, erasers, step(0))).toBe("stepped");
      // Delivered again (its ack was lost): not run, not counted; the next step is sent again.
      expect(await runEraseStep(services, erasers, step(0))).toBe("stale");
      expect(calls).toEqual(["a:null"]);
      expect(queue.sent.slice(1).map((m) => m.body.step)).toEqual([1, 1]);
      expect((await loadDeletion(services.db, deletionId))!.progress.a).toEqual({ removed: 2, done: false });

      expect(await runEraseStep(services, erasers, step(1))).toBe("stepped");
      expect((await loadDeletion(services.db, deletionId))!.progress.a).toEqual({ removed: 5, done: true });
      await expect(runEraseStep(services, erasers, step(2))).rejects.toThrow("crashed half way");
      expect((await loadDeletion(services.db, deletionId))!).toMatchObject({ step: 2, status: "running" });
      expect(await runEraseStep(services, erasers, step(2))).toBe("finished");
      const done = (await loadDeletion(services.db, deletionId))!;
      expect(done).toMatchObject({ status: "finished", step: 3, progress: { a: { removed: 5, done: true }, b: { removed: 1, done: true } } });
      expect(done.finishedAt).not.toBeNull();
      expect(await services.redis.hget(accountKeys.deleting(), user)).toBeNull();
      // The finishing step delivered again: nothing more.
      expect(await runEraseStep(services, erasers, step(2))).toBe("stale");
      expect(calls).toEqual(["a:null", "a:x", "b", "b"]);
      // A new request after the end is a new deletion.
      const again = await startAccountDeletion(services, erasers, user);
      expect(again.deletionId).not.toBe(deletionId);
      for (let n = 0; (await runEraseStep(services, erasers, { kind: "erase-step", deletionId: again.deletionId, step: n })) !== "finished"; n++);
      expect(await services.redis.hget(accountKeys.deleting(), user)).toBeNull();
    });
  });
});
