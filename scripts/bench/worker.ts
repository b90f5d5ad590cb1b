/**
 * The bench-only Worker entry: the production Worker plus the naive baselines and seeding tools the
 * benchmarks use. Only the bench harness bundles it; `wrangler deploy` bundles `src/index.ts`, which
 * contains none of them (test/node/deploy-bundle.test.ts checks).
 */
import { newApp } from "../../src/app";
import worker from "../../src/index";
import { badgesBaselineRoutes } from "./baselines/badges";
import { countersBaselineRoutes } from "./baselines/counters";
import { feedBaselineRoutes } from "./baselines/feed";
import { liveBaselineRoutes } from "./baselines/live";
import { hubStatsRoutes } from "./hubs";
import { notifyBenchRoutes } from "./notify-routes";

export { BenchLiveRoom as LiveRoom } from "./live-room";
export { BadgeHub } from "../../src/badges/live/hub";

const app = newApp();
app.route("/", countersBaselineRoutes);
app.route("/", badgesBaselineRoutes);
app.route("/", liveBaselineRoutes);
app.route("/", feedBaselineRoutes);
app.route("/", hubStatsRoutes);
app.route("/", notifyBenchRoutes);

export default { ...worker, fetch: app.fetch } satisfies ExportedHandler<never, never>;
