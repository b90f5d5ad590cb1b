import type { Services } from "./services";

/**
 * The eraser registry's contract. Each capability that stores something naming a user registers
 * one eraser (src/app.ts lists them, in the order a deletion runs them), which removes that
 * capability's own rows and keys through the paths the capability uses every day. A deletion
 * runs an eraser as steps, one queue message each; a step must be
 * - bounded: a page of work (tens to hundreds of rows and keys), never "everything the user has";
 * - idempotent: a step run twice (a crash after its work, before its message was acked) removes
 *   nothing twice and moves no counter twice — which the everyday paths already guarantee (an
 *   unfollow, an unlike, a post delete each change state once, whoever repeats them);
 * - resumable from its cursor: what the previous step returned (null for the first).
 */
export type EraseStep = { removed: number; cursor: string } | { removed: number; done: true };

export interface Eraser {
  /** The capability's part, as the deletion's progress shows it (`social.posts`, `notify`…). */
  readonly name: string;
  step(services: Services, userId: string, cursor: string | null): Promise<EraseStep>;
}

/** A step's result when a page came back full (more may follow) or short (this eraser is done). */
export function pageStep(removed: number, full: boolean, cursor = "more"): EraseStep {
  return full ? { removed, cursor } : { removed, done: true };
}
