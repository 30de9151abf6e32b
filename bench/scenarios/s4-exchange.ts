/**
 * S4: the STS exchange of an upstream ID token (from a local ES256 issuer whose JWKS Arbor has
 * cached after the first request) for an Arbor token, under closed-loop load from wrk.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { api, bootstrapOrg, startArbor } from "../lib/arbor-process.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../lib/results.js";
import { median } from "../lib/stats.js";
import { runWrk, wrkCommand } from "../lib/wrk.js";
import { startBenchIssuer } from "../upstream-issuer.js";

const CONNECTIONS = 16;

/** The scenario. */
export const s4Exchange: Scenario = { id: "S4", run };

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-bench-s4-"));
  const issuer = await startBenchIssuer();
  try {
    const server = await startArbor({
      env: { ARBOR_DATA_DIR: dataDir, ARBOR_EXCHANGE_RATE_LIMIT: "off", ARBOR_ALLOW_HTTP_LOOPBACK_ISSUERS: "true" },
    });
    try {
      const { org, token } = await bootstrapOrg(server.env, "bench-s4");
      const identity = await api<{ uid: string }>(server.base, token, "POST", `/iam/v2beta1/identities/${org}`, {
        name: "ci",
        claimMatch: { issuer: issuer.url, subject: "ci" },
      });
      await api(server.base, token, "POST", `/iam/v2beta1/roleBindings/${org}`, {
        identityUid: identity.uid,
        roleUid: builtinRoleUid("viewer"),
      });
      const upstream = await issuer.mint("ci", server.base, 3_600);
      const spec = {
        url: `${server.base}/sts/exchange?aud=${encodeURIComponent(server.base)}&identity=${encodeURIComponent(identity.uid)}`,
        headers: { authorization: `Bearer ${upstream}` },
        connections: CONNECTIONS,
        seconds: ctx.seconds,
      };
      await runWrk({ ...spec, seconds: 1 });
      const runs = [];
      for (let round = 0; round < ctx.rounds; round++) {
        const r = await runWrk(spec);
        runs.push(r);
        ctx.log(`S4 round ${round + 1}: ${r.rps.toFixed(0)} exchanges/s, p99 ${r.p99.toFixed(2)} ms, errors ${r.errors}`);
      }
      const rps = median(runs.map((r) => r.rps));
      const errors = runs.reduce((n, r) => n + r.errors, 0);
      const command = wrkCommand(spec);
      return {
        id: "S4",
        title: "STS exchange with a local upstream issuer (JWKS cached)",
        method: [
          `Arbor in its own process with \`ARBOR_EXCHANGE_RATE_LIMIT=off\` (off by default since the throttle of refused credentials ` +
            `replaced it; set so that no limit is ever what is measured) and \`ARBOR_ALLOW_HTTP_LOOPBACK_ISSUERS=true\`, default log ` +
            `level. The upstream is bench/upstream-issuer.ts (ES256, discovery and JWKS on loopback, in the harness process; after the ` +
            `first exchange Arbor answers from its JWKS cache, so the issuer is idle during the measurement). An identity with a claim ` +
            `match on the issuer and subject holds the viewer role on the organization; wrk (${CONNECTIONS} connections) sends \`GET ` +
            `/sts/exchange?aud=…&identity=…\` with the upstream ID token: each request verifies the ES256 signature, matches the ` +
            `identity and signs a new Arbor token.`,
        ],
        figures: [
          { label: "exchanges/s", value: rps, unit: "/s", command },
          { label: "exchange p50", value: median(runs.map((r) => r.p50)), unit: "ms", command },
          { label: "exchange p99", value: median(runs.map((r) => r.p99)), unit: "ms", command },
          { label: "errors (all rounds)", value: errors, unit: "", command },
        ],
        checks: [{ label: "exchanges/s", measured: rps, unit: "/s", op: "≥", bound: 1_500, how: `${CONNECTIONS} connections` }],
        charts: [
          {
            file: "s4-exchange",
            title: "S4: STS exchanges per second (median)",
            unit: "/s",
            bars: [
              { label: "exchange (ES256 in, token out)", value: rps },
              { label: "target", value: 1_500 },
            ],
          },
        ],
        errors,
        notes: errors > 0 ? [`${errors} exchanges failed.`] : [],
      };
    } finally {
      await server.stop();
    }
  } finally {
    await issuer.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
