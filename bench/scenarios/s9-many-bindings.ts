/**
 * S9: a list page of 50 with totalCount for callers bound at 1, 100, 1,000 and 10,000 groups of
 * an organization of 100,000 groups, while 10 binding changes a second go on elsewhere in it;
 * the page must cost the many-binding caller no more than twice the single-binding caller's
 * (issue 22: a list's cost is bounded by the page, not by the caller's bindings).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { api, ARBOR, arborEnv, bootstrapOrg, freePort, startArbor } from "../lib/arbor-process.js";
import { generatedGroupUid, insertBoundIdentities, spreadGroups } from "../lib/bindings.js";
import { startChurn, type ChurnResult } from "../lib/churn.js";
import { analyze, dropSchema, insertGroups, type DatasetTarget } from "../lib/datasets.js";
import { sized } from "../lib/options.js";
import type { Chart, Check, Figure, Scenario, ScenarioContext, ScenarioResult } from "../lib/results.js";
import { median } from "../lib/stats.js";
import { runWrk, wrkCommand, type WrkSpec } from "../lib/wrk.js";

/** The scenario. */
export const s9ManyBindings: Scenario = { id: "S9", run };

const CHANGES_PER_SECOND = 10;
/** Groups the churn cycles through. */
const CHURN_GROUPS = 100;
const n = (x: number) => x.toLocaleString("en-US");
const callerName = (bindings: number) => (bindings === 1 ? "1 binding (at the organization)" : `${n(bindings)} bindings`);

interface CallerRun {
  bindings: number;
  groupsP50: number;
  bindingsP50: number;
  total: number;
}

interface EngineRun {
  engine: "SQLite" | "PostgreSQL";
  callers: CallerRun[];
  /** p50 of the most-bound caller ÷ the single-binding caller's, per round, median. */
  ratio: number;
  /** Non-200 list answers and failed changes. */
  errors: number;
  churn: ChurnResult;
  commands: { groups: string; bindings: string };
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const groups = sized(process.env, "BENCH_S9_GROUPS", 100_000, 20_000);
  const sizes = ctx.quick ? [1, 10, 100, 1_000] : [1, 100, 1_000, 10_000];
  const runs = [await measureEngine(ctx, "SQLite", groups, sizes), await measureEngine(ctx, "PostgreSQL", groups, sizes)];
  const most = n(sizes.at(-1) as number);
  const figures: Figure[] = [];
  const checks: Check[] = [];
  const bars: Chart["bars"] = [];
  for (const r of runs) {
    for (const c of r.callers) {
      figures.push(
        {
          label: `${r.engine}, caller with ${callerName(c.bindings)}: groups page p50 (totalCount ${n(c.total)})`,
          value: c.groupsP50,
          unit: "ms",
          command: r.commands.groups,
        },
        {
          label: `${r.engine}, caller with ${callerName(c.bindings)}: roleBindings page p50`,
          value: c.bindingsP50,
          unit: "ms",
          command: r.commands.bindings,
        },
      );
      bars.push({ label: `${r.engine}, ${n(c.bindings)} bindings`, value: c.groupsP50 });
    }
    figures.push(
      {
        label: `${r.engine}: binding changes a second achieved in the background`,
        value: r.churn.achieved,
        unit: "/s",
        command: "bench/lib/churn.ts (POST and DELETE /iam/v2beta1/roleBindings, owner token)",
      },
      { label: `${r.engine}: errors (lists and changes, all rounds)`, value: r.errors, unit: "", command: r.commands.groups },
    );
    checks.push({
      label: `${r.engine} groups page p50, ${most} bindings vs 1`,
      measured: r.ratio,
      unit: "×",
      op: "≤",
      bound: 2,
      how: "p50 ÷ p50, per round, under 10 binding changes/s",
      errors: r.errors,
    });
  }
  return {
    id: "S9",
    title: `a page of 50 with totalCount for callers with 1 to ${most} bindings, under binding changes`,
    method: [
      `An organization of ${n(groups)} groups (generated straight into the store as in S2, \`BENCH_S9_GROUPS\`) on SQLite in a fresh ` +
        `data dir and on PostgreSQL in a schema of its own. Four identities of the organization are bound \`viewer\`: the single-binding ` +
        `caller at the organization itself (as the owner of issue 22's table, so that its page, like every other caller's, holds 50 ` +
        `groups), the others at ${sizes.slice(1).map(n).join(", ")} of its groups, spread evenly over it and never at the same group ` +
        `(written through the store in batches of 1,000 per transaction); each gets its token from \`arbor admin token --identity\`. The ` +
        `planner's statistics are taken of the whole dataset on PostgreSQL (\`analyze\`, as autovacuum would). On SQLite the ` +
        `server takes those of the groups, identities and role bindings itself when it starts, as it does for its users. The server ` +
        `starts on that data as a user runs it.`,
      `Each caller's \`GET /iam/v2beta1/groups?uidp.descendants_of={org}&page_size=50\` (the figure and the target) and \`GET ` +
        `/iam/v2beta1/roleBindings?uidp.descendants_of={org}&page_size=50\` (a figure only) are measured with one wrk connection (the ` +
        `service time of one request), callers in turn within each round (in reverse order every other round), after a 1 s warm-up each. ` +
        `Throughout, the harness makes ${CHANGES_PER_SECOND} binding changes a second through the API with the owner's token, ` +
        `alternately creating a \`viewer\` binding of a fifth identity and deleting it again, at ${CHURN_GROUPS} groups none of the ` +
        `callers is bound at: each change moves that identity's authorization generation, never the callers'. The ratio is taken per ` +
        `round; any non-200 answer, of a list or of a change, fails the target.`,
    ],
    figures,
    checks,
    charts: [
      { file: "s9-many-bindings", title: "S9: groups page of 50 + totalCount by the caller's bindings, p50 (ms)", unit: "ms", bars },
    ],
    errors: runs.reduce((n, r) => n + r.errors, 0),
    notes: runs.flatMap((r) => [
      ...(r.churn.firstError ? [`${r.engine}: ${r.churn.errors} binding changes failed, e.g. ${r.churn.firstError}`] : []),
      ...(r.churn.achieved < CHANGES_PER_SECOND * 0.95
        ? [`${r.engine}: the background changes fell behind (${r.churn.achieved.toFixed(1)} a second of ${CHANGES_PER_SECOND}).`]
        : []),
    ]),
  };
}

async function measureEngine(ctx: ScenarioContext, engine: EngineRun["engine"], groups: number, sizes: number[]): Promise<EngineRun> {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-bench-s9-"));
  const schema = `bench_s9_${process.pid}`;
  const target: DatasetTarget = engine === "SQLite" ? { engine: "sqlite", dataDir } : { engine: "postgres", url: ctx.databaseUrl, schema };
  const settings: Record<string, string> = {
    ARBOR_DATA_DIR: dataDir,
    ...(engine === "PostgreSQL" && { ARBOR_DATABASE_URL: ctx.databaseUrl, ARBOR_DATABASE_SCHEMA: schema }),
  };
  try {
    const port = await freePort();
    const env = arborEnv(port, settings);
    const { org, token } = await bootstrapOrg(env, "bench-s9");
    const t0 = performance.now();
    await insertGroups(target, org, groups);
    const lanes = sizes.length + 1;
    // The single binding is at the organization, as the owner's in issue 22's table: every
    // caller's page then holds 50 groups, and the ratio compares the cost of bindings, not of
    // serialising 50 groups against one (a single binding at one leaf group lists one group).
    const bound = [
      ...sizes.map((count, lane) =>
        count === 1
          ? { name: "caller-1", groups: [], atOrganization: true }
          : { name: `caller-${count}`, groups: spreadGroups(groups, count, lane, lanes) },
      ),
      { name: "churn", groups: [] },
    ];
    const uids = await insertBoundIdentities(target, org, bound);
    // Statistics of the whole dataset: taken with the groups only, they had the planner take
    // role_bindings for one row and scan it for every scope of a caller (67 ms a page). On
    // SQLite the server takes them itself when it starts, as it does for its users; PostgreSQL's
    // stand in for autovacuum's.
    if (target.engine === "postgres") await analyze(target);
    ctx.log(
      `S9 ${engine}: ${groups} groups and ${sizes.reduce((a, b) => a + b, 0)} bindings in ` +
        `${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const tokens = await Promise.all(uids.slice(0, -1).map((uid) => identityToken(env, uid)));
    const server = await startArbor({ env: settings, port });
    const churnAt = spreadGroups(groups, CHURN_GROUPS, sizes.length, lanes).map((g) => generatedGroupUid(org, g));
    const churn = startChurn(server.base, token, uids.at(-1) as string, churnAt, CHANGES_PER_SECOND);
    let churned: ChurnResult | undefined;
    try {
      const paths = {
        groups: `/iam/v2beta1/groups?uidp.descendants_of=${org}&page_size=50`,
        bindings: `/iam/v2beta1/roleBindings?uidp.descendants_of=${org}&page_size=50`,
      };
      const spec = (path: string, caller: number): WrkSpec => ({
        url: `${server.base}${path}`,
        headers: { authorization: `Bearer ${tokens[caller]}` },
        connections: 1,
        threads: 1,
        seconds: ctx.seconds,
      });
      const totals = await Promise.all(
        tokens.map((t) => api<{ totalCount?: string }>(server.base, t, "GET", paths.groups).then((r) => Number(r.totalCount))),
      );
      for (const [i] of tokens.entries()) await runWrk({ ...spec(paths.groups, i), seconds: 1 });
      const groupsP50 = sizes.map((): number[] => []);
      const bindingsP50 = sizes.map((): number[] => []);
      let errors = 0;
      for (let round = 0; round < ctx.rounds; round++) {
        const order = sizes.map((_, i) => i);
        for (const i of round % 2 === 0 ? order : order.reverse()) {
          const g = await runWrk(spec(paths.groups, i));
          const b = await runWrk(spec(paths.bindings, i));
          groupsP50[i]?.push(g.p50);
          bindingsP50[i]?.push(b.p50);
          errors += g.errors + b.errors;
        }
        ctx.log(
          `S9 ${engine} round ${round + 1}: groups p50 ${groupsP50.map((p, i) => `${sizes[i]}: ${p.at(-1)?.toFixed(2)}`).join(", ")} ` +
            `ms; errors ${errors}`,
        );
      }
      churned = await churn.stop();
      const first = groupsP50[0] as number[];
      return {
        engine,
        callers: sizes.map((bindings, i) => ({
          bindings,
          total: totals[i] as number,
          groupsP50: median(groupsP50[i] as number[]),
          bindingsP50: median(bindingsP50[i] as number[]),
        })),
        ratio: median((groupsP50.at(-1) as number[]).map((p, round) => p / (first[round] as number))),
        errors: errors + churned.errors,
        churn: churned,
        commands: { groups: wrkCommand(spec(paths.groups, 0)), bindings: wrkCommand(spec(paths.bindings, 0)) },
      };
    } finally {
      if (churned === undefined) await churn.stop();
      await server.stop();
    }
  } finally {
    if (engine === "PostgreSQL") await dropSchema(ctx.databaseUrl, schema);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A token of an existing identity, as an operator gets one. */
async function identityToken(env: NodeJS.ProcessEnv, uid: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [ARBOR, "admin", "token", "--identity", uid], { env });
  return stdout.trim();
}
