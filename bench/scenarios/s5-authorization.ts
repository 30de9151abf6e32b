/**
 * S5: the cost authorization adds to a request, in process: a store with a tree 10 levels deep
 * and 10,000 role bindings of many identities, and the work the invoker does per call (one
 * Authorizer.permissionsOf, then Permissions.allows at the request's scope) timed warm.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Capability } from "../../src/domain/capabilities.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { Authorizer } from "../../src/services/authorizer.js";
import { createStore } from "../../src/store/create-store.js";
import type { Store } from "../../src/store/types.js";
import { sized } from "../lib/options.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../lib/results.js";
import { median, percentile } from "../lib/stats.js";

const DEPTH = 10;
const ROLES = ["viewer", "editor", "owner", "registry.pull", "registry.push"].map(builtinRoleUid);

/** The scenario. */
export const s5Authorization: Scenario = { id: "S5", run };

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-bench-s5-"));
  const store = await createStore({ dataDir });
  try {
    const bindingCount = sized(process.env, "BENCH_S5_BINDINGS", 10_000, 10_000);
    const tree = await binaryTree(store);
    const deepest = tree.at(-1) as string;
    // The caller under test: five bindings along the path and beside it, like a busy person.
    const caller = `${tree[0]}/${hex(0xca11e7, 16)}`;
    const path = tree.filter((uid) => uid.split("/").length <= DEPTH && deepest.startsWith(uid));
    let n = 0;
    const bind = (groupUid: string, identityUid: string, roleUid: string) =>
      store.bindings.insert({ uid: `${groupUid}/${hex(++n, 16)}`, groupUid, identityUid, roleUid, createTime: Date.now() });
    for (const [i, g] of [path[4], path[6], tree[1], tree[2], path[8]].entries()) await bind(g as string, caller, ROLES[i % 2] as string);
    const rootCaller = `${tree[0]}/${hex(0x2007, 16)}`;
    await bind(tree[0] as string, rootCaller, builtinRoleUid("viewer"));
    // The other bindings: 2,000 identities spread over the tree with various roles.
    for (let i = n; i < bindingCount; i++)
      await bind(
        tree[(i * 7919) % tree.length] as string,
        `${tree[0]}/${hex(0x10000 + (i % 2_000), 16)}`,
        ROLES[Math.floor(i / 2_000) % ROLES.length] as string,
      );
    const authorizer = new Authorizer(store.bindings, store.identities, { allowOrgCreation: true });
    const iterations = ctx.quick ? 2_000 : 10_000;
    const deep = await timeChecks(ctx, authorizer, caller, deepest, iterations);
    const root = await timeChecks(ctx, authorizer, rootCaller, deepest, iterations);
    const command = "npm run build && BENCH_ONLY=S5 node dist/bench/run.js";
    return {
      id: "S5",
      title: "authorization cost per request, tree 10 levels deep, 10,000 bindings",
      method: [
        `In process, on a fresh SQLite store: a binary tree of groups ${DEPTH} levels deep (${tree.length} groups) and ${n.toLocaleString("en-US")} role bindings (2,000 identities, five built-in roles, spread over the tree). The caller under test holds five bindings: two along the path to the deepest group, three elsewhere; a second caller holds one binding at the root.`,
        `What is timed is exactly the authorization work the invoker (src/server/invoker.ts) does for a call: \`Authorizer.permissionsOf(identity)\` (one store query joining the identity's bindings with their roles) and \`Permissions.allows([CAP_IAM_GROUPS_LIST], scope)\` for a GET of the deepest group. Warm: ${iterations / 10} calls first, then ${iterations.toLocaleString("en-US")} calls one after the other per round; the figure is the median over rounds of the mean per call. Everything else a GET does (parsing, token verification, the read, serialisation) is the same whether or not the request is authorized, so this is the cost authorization adds.`,
      ],
      figures: [
        { label: "caller bound deep in the tree: authorization per request (mean)", value: deep.mean, unit: "ms", command },
        { label: "caller bound deep in the tree: p99 of single checks", value: deep.p99, unit: "ms", command },
        { label: "caller bound at the root: authorization per request (mean)", value: root.mean, unit: "ms", command },
      ],
      checks: [
        {
          label: "authorization added per request, warm",
          measured: deep.mean,
          unit: "ms",
          op: "≤",
          bound: 0.2,
          how: "mean of permissionsOf + allows, caller with 5 bindings",
        },
      ],
      charts: [
        {
          file: "s5-authorization",
          title: "S5: authorization per request (ms, warm)",
          unit: "ms",
          bars: [
            { label: "bound deep (5 bindings)", value: deep.mean },
            { label: "bound at the root", value: root.mean },
            { label: "target", value: 0.2 },
          ],
        },
      ],
      // A check that denies what the dataset grants throws, and the scenario fails rather than report.
      errors: 0,
      notes: [],
    };
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A binary tree DEPTH levels deep under a new organization, the deepest-left group last. */
async function binaryTree(store: Store): Promise<string[]> {
  const now = Date.now();
  const org = hex(0xa5b0, 40);
  const out: string[] = [];
  const insert = async (uid: string, parentUid: string | null, name: string) => {
    await store.groups.insert({ uid, parentUid, name, description: "", createTime: now, updateTime: now });
    out.push(uid);
  };
  await insert(org, null, "bench-s5");
  let level = [org];
  let k = 0;
  for (let depth = 2; depth <= DEPTH; depth++) {
    const next: string[] = [];
    for (const parent of level) {
      for (const side of [1, 0]) {
        const uid = `${parent}/${hex(++k, 16)}`;
        await insert(uid, parent, `l${depth}-${side}-${k}`);
        next.push(uid);
      }
    }
    level = next;
  }
  return out;
}

async function timeChecks(
  ctx: ScenarioContext,
  authorizer: Authorizer,
  identity: string,
  scope: string,
  iterations: number,
): Promise<{ mean: number; p99: number }> {
  const check = async () => {
    const permissions = await authorizer.permissionsOf(identity);
    if (!permissions.allows([Capability.CAP_IAM_GROUPS_LIST], scope))
      throw new Error(`${identity} may not read ${scope}: the dataset is wrong`);
  };
  for (let i = 0; i < iterations / 10; i++) await check();
  const means: number[] = [];
  const p99s: number[] = [];
  for (let round = 0; round < ctx.rounds; round++) {
    const each: number[] = [];
    const start = performance.now();
    for (let i = 0; i < iterations; i++) {
      const t0 = performance.now();
      await check();
      each.push(performance.now() - t0);
    }
    means.push((performance.now() - start) / iterations);
    p99s.push(
      percentile(
        each.sort((a, b) => a - b),
        99,
      ),
    );
    ctx.log(`S5 round ${round + 1} (${identity.slice(-6)}): ${(means.at(-1) as number).toFixed(4)} ms per check`);
  }
  return { mean: median(means), p99: median(p99s) };
}
