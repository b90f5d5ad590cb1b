import { defineConfig } from "drizzle-kit";

// drizzle-kit talks plain TCP (pg) to the database named by DATABASE_URL; the Worker itself
// reaches the same database through the Neon serverless driver.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema.ts",
  out: "./drizzle",
  strict: true,
  dbCredentials: { url: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" },
});
