import { sql } from "drizzle-orm";
import { isoTimestamp } from "../db/columns";
import type { Services } from "../lib/services";
import { writeTerms } from "./copy";

export type TermList = { terms: string[]; version: number; updatedAt: string | null };

/** Replaces the filter's terms (deduplicated, as written); every isolate's filter follows within the copy's bound. */
export async function putTerms(services: Services, adminId: string, terms: readonly string[]): Promise<TermList> {
  const unique = [...new Set(terms.map((t) => t.trim()).filter(Boolean))];
  const { rows } = await services.db.execute<{ version: number; updated_at: string }>(sql`
    INSERT INTO safety_moderation_terms (id, terms, version, updated_by)
    VALUES (1, ${sql`ARRAY[${sql.join(unique.map((t) => sql`${t}`), sql`, `)}]::text[]`}, 1, ${adminId})
    ON CONFLICT (id) DO UPDATE SET terms = excluded.terms, version = safety_moderation_terms.version + 1,
                                   updated_by = excluded.updated_by, updated_at = now()
    RETURNING version, updated_at::text`);
  const row = rows[0]!;
  await writeTerms(services, unique, row.version);
  return { terms: unique, version: row.version, updatedAt: isoTimestamp(row.updated_at) };
}

/** The filter's terms as stored (Postgres, the truth). */
export async function getTerms(services: Services): Promise<TermList> {
  const { rows } = await services.db.execute<{ terms: string[]; version: number; updated_at: string }>(
    sql`SELECT terms, version, updated_at::text FROM safety_moderation_terms WHERE id = 1`,
  );
  const row = rows[0];
  return row ? { terms: row.terms, version: row.version, updatedAt: isoTimestamp(row.updated_at) } : { terms: [], version: 0, updatedAt: null };
}
