/**
 * The bench-only Worker entry: the production Worker plus the naive baselines the benchmarks
 * compare against. Only the bench harness bundles it; `wrangler deploy` bundles `src/index.ts`.
 */
import { newApp } from "../../src/app";
import worker from "../../src/index";
import { feedBaselineRoutes } from "./baselines/feed";

export { LiveRoom } from "../../src/live/room";

const app = newApp();
app.route("/", feedBaselineRoutes);

export default { ...worker, fetch: app.fetch } satisfies ExportedHandler<never, never>;
