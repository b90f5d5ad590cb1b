let sequence = 0;
/**
 * A fresh positive 64-bit id. Test files share one Redis and one Postgres, so every test works on
 * ids nobody else uses instead of cleaning up. Plain TypeScript: the Workers tests and the Node
 * tests share it.
 */
export function newId(): string {
  sequence = (sequence + 1) % 1000;
  const random = Math.floor(Math.random() * 9e12) + 1e12;
  return `${random}${String(sequence).padStart(3, "0")}`;
}
