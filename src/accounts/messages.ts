/** The account-erase queue's messages: one is one step of one deletion (the row holds where it is). */
export type EraseMessage = { kind: "erase-step"; deletionId: string; step: number };

export const ERASE_QUEUES = { erase: "account-erase" } as const;
export const ERASE_DEAD_LETTER_QUEUES = { erase: "account-erase-dlq" } as const;

export function isEraseQueue(queue: string): boolean {
  return queue === ERASE_QUEUES.erase || queue === ERASE_DEAD_LETTER_QUEUES.erase;
}
