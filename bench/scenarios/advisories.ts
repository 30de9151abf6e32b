/**
 * The advisory figures (no target): importing generated OSV documents into a running server's
 * store, new and then unchanged, and listing them by ecosystem and by a text query.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { resolveConfig } from "../../src/config.js";
import { adminIdentityUid } from "../../src/domain/identities.js";
import { importAdvisories } from "../../src/osv/import-advisories.js";
import { readSources } from "../../src/osv/read-sources.js";
import { startServer } from "../../src/server/server.js";
import { createOrganization } from "../../src/services/groups-store-ops.js";
import { sized } from "../lib/options.js";
import type { Figure, Scenario, ScenarioContext, ScenarioResult } from "../lib/results.js";
import { median } from "../lib/stats.js";
import { runWrk, wrkCommand } from "../lib/wrk.js";
import { writeOsvArchive } from "../osv-documents.js";

/** The scenario. */
export const advisories: Scenario = { id: "ADVISORIES", run };

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const count = sized(process.env, "BENCH_ADVISORIES", 30_000, 3_000);
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-bench-osv-"));
  const config = { ...resolveConfig({ env: {} }), port: 0, host: "127.0.0.1", dataDir, baseUrl: undefined };
  const server = await startServer(config, { logger: pino({ level: "silent" }) });
  try {
    const org = await createOrganization(server.deps, { name: "bench", description: "" }, adminIdentityUid);
    const { token } = await server.tokens.issue(adminIdentityUid(org.uid), server.url);
    const archive = join(dataDir, "osv-bench.zip");
    await writeOsvArchive(archive, count);
    const figures: Figure[] = [];
    const bars = [];
    for (const scenario of ["first import (all new)", "again (all unchanged)"]) {
      const started = performance.now();
      const summary = await importAdvisories(server.store, (await readSources([archive])).items());
      const seconds = (performance.now() - started) / 1000;
      if (summary.skipped + summary.unreadable > 0) throw new Error(`the generated documents did not import: ${JSON.stringify(summary)}`);
      figures.push({
        label: `import, ${scenario}`,
        value: count / seconds,
        unit: "documents/s",
        command: `BENCH_ONLY=advisories BENCH_ADVISORIES=${count} npm run bench`,
      });
      bars.push({ label: scenario, value: count / seconds });
      ctx.log(`advisory import, ${scenario}: ${(count / seconds).toFixed(0)} documents/s`);
    }
    const base = `http://127.0.0.1:${server.port}`;
    for (const [label, query] of [
      ["ecosystem=npm", "ecosystem=npm"],
      ["query=injection (a scan)", "query=injection"],
    ] as const) {
      const spec = {
        url: `${base}/vulnerabilities/v2beta1/advisories?${query}&page_size=50`,
        headers: { authorization: `Bearer ${token}` },
        connections: 8,
        seconds: ctx.seconds,
      };
      const runs = [];
      for (let round = 0; round < ctx.rounds; round++) runs.push(await runWrk(spec));
      figures.push(
        {
          label: `GET advisories, ${label}, page of 50 + totalCount: requests/s`,
          value: median(runs.map((r) => r.rps)),
          unit: "req/s",
          command: wrkCommand(spec),
        },
        { label: `GET advisories, ${label}: p50`, value: median(runs.map((r) => r.p50)), unit: "ms", command: wrkCommand(spec) },
      );
    }
    return {
      id: "ADVISORIES",
      title: "advisory import and lists (no target)",
      method: [
        `${count.toLocaleString("en-US")} generated OSV documents (\`BENCH_ADVISORIES\`; GitHub-, Go- and PyPI-style, 1 to 3 affected packages each, about 2 KB of JSON) in one zip archive, imported into a running server's store (in the harness process, log silent) as \`arbor advisories import\` and the feed sync's full import do (an incremental sync imports only the changed documents, the same way): schema check, batches of 500 per transaction; each import figure is one run. Then wrk (8 connections) lists them by ecosystem and by a text query.`,
      ],
      figures,
      checks: [],
      charts: [{ file: "advisories-import", title: "Advisory import, documents/s", unit: "/s", bars }],
      notes: [],
    };
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
