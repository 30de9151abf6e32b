/**
 * S5: the cost authorization adds to a request, in process: a store with a tree 10 levels deep
 * and 10,000 role bindings of many identities, and the work the invoker does per call (one
 * Authorizer.permissionsOf, then Permissions.allows at the request's scope), timed with the
 * caller's permissions remembered (a hit), not remembered (a miss: the store join), and right
 * after a change elsewhere: a binding of another identity in another organization (moves that
 * identity's authorization generation only) and a custom role in another organization (moves the
 * global one, so every caller misses once).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Capability, capabilityName } from "../../src/domain/capabilities.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { Authorizer } from "../../src/auth/authorizer.js";
import { createStore } from "../../src/store/create-store.js";
import type { Store } from "../../src/store/store.js";
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
    // Elsewhere: another organization with a custom role and a binding of another identity.
    const elsewhere = hex(0xe15e, 40);
    await store.groups.insert({
      uid: elsewhere,
      parentUid: null,
      name: "bench-s5-elsewhere",
      description: "",
      createTime: 0,
      updateTime: 0,
    });
    const otherRole = `${elsewhere}/${hex(0x7013, 16)}`;
    await store.roles.insert({
      uid: otherRole,
      parentUid: elsewhere,
      name: "elsewhere",
      description: "",
      capabilities: [capabilityName(Capability.CAP_IAM_GROUPS_LIST)],
      createTime: 0,
      updateTime: 0,
    });
    const otherIdentity = `${elsewhere}/${hex(0x0e1, 16)}`;
    const otherBinding = `${elsewhere}/${hex(0xb1d, 16)}`;
    let changes = 0;
    // The changes, made between timed checks and not timed themselves: a binding inserted and
    // deleted in turn, a role's description rewritten (any write of a role moves the generation).
    const bindingChange = async () => {
      if (changes++ % 2 === 0)
        await store.bindings.insert({
          uid: otherBinding,
          groupUid: elsewhere,
          identityUid: otherIdentity,
          roleUid: otherRole,
          createTime: 0,
        });
      else await store.bindings.delete(otherBinding);
    };
    const roleChange = async () => {
      await store.roles.update(otherRole, { description: `change ${++changes}` }, Date.now());
    };

    const options = { allowOrgCreation: true };
    const warm = new Authorizer(store.bindings, store.identities, options);
    const fresh = async () => new Authorizer(store.bindings, store.identities, options);
    const same = async () => warm;
    const iterations = ctx.quick ? 2_000 : 10_000;
    const deep = await timeChecks(ctx, "hit", same, caller, deepest, iterations);
    const root = await timeChecks(ctx, "hit", same, rootCaller, deepest, iterations);
    const deepMiss = await timeChecks(ctx, "miss", fresh, caller, deepest, iterations);
    const rootMiss = await timeChecks(ctx, "miss", fresh, rootCaller, deepest, iterations);
    const afterBinding = await timeChecks(
      ctx,
      "after a binding change elsewhere",
      async () => (await bindingChange(), warm),
      caller,
      deepest,
      iterations,
    );
    const afterRole = await timeChecks(
      ctx,
      "after a role change elsewhere",
      async () => (await roleChange(), warm),
      caller,
      deepest,
      iterations,
    );
    const command = "npm run build && BENCH_ONLY=S5 node dist/bench/run.js";
    return {
      id: "S5",
      title: "authorization cost per request, tree 10 levels deep, 10,000 bindings",
      method: [
        `In process, on a fresh SQLite store: a binary tree of groups ${DEPTH} levels deep (${tree.length} groups) and ` +
          `${n.toLocaleString("en-US")} role bindings (2,000 identities, five built-in roles, spread over the tree). The caller under ` +
          `test holds five bindings: two along the path to the deepest group, three elsewhere; a second caller holds one binding at the ` +
          `root.`,
        `What is timed is exactly the authorization work the invoker (src/server/invoker.ts) does for a call: ` +
          `\`Authorizer.permissionsOf(identity)\` and \`Permissions.allows([CAP_IAM_GROUPS_LIST], scope)\` for a GET of the deepest ` +
          `group. \`permissionsOf\` reads the caller's authorization generation (one row read: a global number and the identity's own) ` +
          `and, when it has permissions remembered for that caller at that generation (a hit), uses them; otherwise (a miss) it reads ` +
          `the caller's bindings joined with their roles and remembers the result. Everything else a GET does (parsing, token ` +
          `verification, the read, serialisation) is the same whether or not the request is authorized, so this is the cost ` +
          `authorization adds. Each figure: ${iterations / 10} calls first, then ${iterations.toLocaleString("en-US")} calls one after ` +
          `the other per round, the mean per call, median over rounds.`,
        "Four cases. A hit: one Authorizer for all calls, so after the first call every call is a hit (the target is judged on this, " +
          "the common case). A miss: a new Authorizer (an empty cache) before every call, made untimed, so every call reads the " +
          "generation and the bindings: what a caller pays on its first request, after a change of its own, or after a change that " +
          "empties every cache. After a change elsewhere, the one Authorizer again, and before every call (untimed) a change in another " +
          "organization the caller has nothing to do with: a binding of another identity (inserted, then deleted, in turn), which moves " +
          "only that identity's generation (migration 0013), so the caller still hits; or a custom role's description rewritten, which " +
          "moves the global generation (migrations 0007 and 0013: any write of a role does), so the caller misses. So a binding changed " +
          "anywhere costs other callers no miss: they keep their remembered permissions, and what the figure adds to a hit is the " +
          "generation's first read after a commit, which a write of any kind costs the next read (a group inserted elsewhere costs " +
          "the same). A role changed anywhere costs every caller of every server a miss on its next call " +
          "(timed here right after the write, as a server would meet it).",
      ],
      figures: [
        { label: "caller bound deep in the tree: authorization per request (mean)", value: deep.mean, unit: "ms", command },
        { label: "caller bound deep in the tree: p99 of single checks", value: deep.p99, unit: "ms", command },
        { label: "caller bound at the root: authorization per request (mean)", value: root.mean, unit: "ms", command },
        { label: "caller bound deep, miss (permissions not remembered): per request (mean)", value: deepMiss.mean, unit: "ms", command },
        { label: "caller bound deep, miss: p99 of single checks", value: deepMiss.p99, unit: "ms", command },
        { label: "caller bound at the root, miss: per request (mean)", value: rootMiss.mean, unit: "ms", command },
        {
          label: "caller bound deep, right after a binding change of another identity elsewhere: per request (mean)",
          value: afterBinding.mean,
          unit: "ms",
          command,
        },
        {
          label: "caller bound deep, right after a role change elsewhere: per request (mean)",
          value: afterRole.mean,
          unit: "ms",
          command,
        },
      ],
      checks: [
        {
          label: "authorization added per request, warm",
          measured: deep.mean,
          unit: "ms",
          op: "≤",
          bound: 0.2,
          how: "mean of permissionsOf + allows, caller with 5 bindings, permissions remembered",
        },
      ],
      charts: [
        {
          file: "s5-authorization",
          title: "S5: authorization per request (ms, warm)",
          unit: "ms",
          bars: [
            { label: "bound deep (5 bindings), hit", value: deep.mean },
            { label: "bound at the root, hit", value: root.mean },
            { label: "bound deep, miss", value: deepMiss.mean },
            { label: "bound deep, after a binding change elsewhere", value: afterBinding.mean },
            { label: "bound deep, after a role change elsewhere", value: afterRole.mean },
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

/**
 * Times `iterations` checks a round; before each (untimed), `prepare` does what the case needs
 * and gives the Authorizer to ask.
 */
async function timeChecks(
  ctx: ScenarioContext,
  name: string,
  prepare: () => Promise<Authorizer>,
  identity: string,
  scope: string,
  iterations: number,
): Promise<{ mean: number; p99: number }> {
  const check = async (authorizer: Authorizer) => {
    const permissions = await authorizer.permissionsOf(identity);
    if (!permissions.allows([Capability.CAP_IAM_GROUPS_LIST], scope))
      throw new Error(`${identity} may not read ${scope}: the dataset is wrong`);
  };
  for (let i = 0; i < iterations / 10; i++) await check(await prepare());
  const means: number[] = [];
  const p99s: number[] = [];
  for (let round = 0; round < ctx.rounds; round++) {
    const each: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const authorizer = await prepare();
      const t0 = performance.now();
      await check(authorizer);
      each.push(performance.now() - t0);
    }
    means.push(each.reduce((a, b) => a + b, 0) / iterations);
    p99s.push(
      percentile(
        each.sort((a, b) => a - b),
        99,
      ),
    );
    ctx.log(`S5 round ${round + 1} (${identity.slice(-6)}, ${name}): ${(means.at(-1) as number).toFixed(4)} ms per check`);
  }
  return { mean: median(means), p99: median(p99s) };
}
