/**
 * S8: Arbor side by side with OpenStack Keystone (Debian, SQLite, uWSGI) on the same machine in
 * the same run: list a domain's 10,000 projects, list role assignments, create a nested project.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { api, bootstrapOrg, startArbor, type ArborProcess } from "../lib/arbor-process.js";
import { insertGroups } from "../lib/datasets.js";
import { keystoneApi, startKeystone, type Keystone } from "../lib/keystone.js";
import { sized } from "../lib/options.js";
import type { Check, Figure, Scenario, ScenarioContext, ScenarioResult } from "../lib/results.js";
import { median } from "../lib/stats.js";
import { runWrk, wrkCommand, type WrkSpec } from "../lib/wrk.js";

const CONNECTIONS = 8;
const ROLES = ["viewer", "editor", "owner"];

/** The scenario. */
export const s8Keystone: Scenario = { id: "S8", run };

interface Side {
  listAllMs: number;
  assignmentsRps: number;
  createRps: number;
  errors: number;
  commands: { list: string; assignments: string; create: string };
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const projects = sized(process.env, "BENCH_S8_PROJECTS", 10_000, 10_000);
  const people = ctx.quick ? 10 : 34;
  const ks = await startKeystone(ctx.log);
  let keystone: Side;
  try {
    keystone = await measureKeystone(ctx, ks, projects, people);
  } finally {
    await ks.stop();
  }
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-bench-s8-"));
  let arbor: Side;
  try {
    const server = await startArbor({ env: { ARBOR_DATA_DIR: dataDir } });
    try {
      arbor = await measureArbor(ctx, server, dataDir, projects, people);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const ratio = (label: string, a: number, k: number, how: string): Check => ({
    label,
    measured: a / k,
    unit: "×",
    op: "≥",
    bound: 5,
    how,
  });
  const figures: Figure[] = [];
  for (const [name, side] of [
    ["Keystone", keystone],
    ["Arbor", arbor],
  ] as const) {
    figures.push(
      {
        label: `${name}: list all ${projects.toLocaleString("en-US")} projects/groups`,
        value: side.listAllMs,
        unit: "ms",
        command: side.commands.list,
      },
      {
        label: `${name}: list role assignments/bindings (${people * 3})`,
        value: side.assignmentsRps,
        unit: "req/s",
        command: side.commands.assignments,
      },
      { label: `${name}: create nested project/group`, value: side.createRps, unit: "/s", command: side.commands.create },
      { label: `${name}: errors`, value: side.errors, unit: "", command: side.commands.create },
    );
  }
  return {
    id: "S8",
    title: "side by side with OpenStack Keystone (SQLite, same machine, same run)",
    method: [
      `Keystone 2:22.0.2 from Debian bookworm (\`apt-get install keystone uwsgi-core uwsgi-plugin-python3\`), configured in a temp dir: SQLite database, fernet tokens (\`keystone-manage db_sync\`, \`fernet_setup\`, \`credential_setup\`, \`bootstrap\` with an admin password), logging to a file at its default level, no cache backend (Debian's default: \`[cache]\` is off). Served by uWSGI, the server Debian's own keystone-uwsgi.ini uses (master, lazy apps, threads enabled, thunder lock), with HTTP/1.1 keep-alive (\`--http11-socket\`) on loopback and ${2 * 2} worker processes of one thread (two per core: Python's GIL makes threads no faster for this CPU-bound work, and SQLite takes one writer at a time; Debian's 8 × 32 is sized for a larger machine). wsgiref would be single-threaded and unrealistic. Requests carry an admin token (X-Auth-Token), Arbor's the owner token; Arbor runs as in S1 (own process, SQLite, default log level). Keystone first, then Arbor, alternately would mean setting Keystone up again each round (minutes); instead each side runs all its rounds back to back and the ratios are of the medians.`,
      `List: a domain with ${projects.toLocaleString("en-US")} projects (generated straight into Keystone's \`project\` table; Arbor's ${projects.toLocaleString("en-US")} groups straight into its store, as in S2). Keystone's \`GET /v3/projects?domain_id=…\` has no pagination and returns all of them in one answer; Arbor lists them as a client must, page by page of 200 (\`uidp.descendants_of\`, following nextPageToken, ${Math.ceil(projects / 200)} requests, each with totalCount). The figure is the time to have all of them, one client, sequential: the fair comparison, because it is what a user waits for and it charges Arbor its per-page overheads (auth, count) rather than comparing one Keystone request with one Arbor page.`,
      `Role assignments: ${people} users of the domain with three roles each on one project (${people * 3} assignments, written to Keystone's \`assignment\` table; users created through the API), \`GET /v3/role_assignments?scope.project.id=…&include_subtree=true\`; Arbor: ${people} identities with three built-in roles each on a group (through the API), \`GET /iam/v2beta1/roleBindings?uidp.descendants_of=…&page_size=200\` (one page, bindings hydrated with identity and role). Create: \`POST /v3/projects\` with a parent project (nested in the domain) vs \`POST /iam/v2beta1/groups/{parent}\`. Both with wrk, ${CONNECTIONS} connections, distinct names.`,
    ],
    figures,
    checks: [
      ratio("list a domain's projects", keystone.listAllMs, arbor.listAllMs, "Keystone ms ÷ Arbor ms, all items"),
      ratio("list role assignments", arbor.assignmentsRps, keystone.assignmentsRps, "Arbor req/s ÷ Keystone req/s"),
      ratio("create project", arbor.createRps, keystone.createRps, "Arbor /s ÷ Keystone /s"),
    ],
    charts: [
      {
        file: "s8-list",
        title: `S8: time to list ${projects.toLocaleString("en-US")} projects (ms, lower is better)`,
        unit: "ms",
        bars: [
          { label: "Keystone (one request)", value: keystone.listAllMs },
          { label: `Arbor (${Math.ceil(projects / 200)} pages of 200)`, value: arbor.listAllMs },
        ],
      },
      {
        file: "s8-rates",
        title: "S8: requests per second (higher is better)",
        unit: "/s",
        bars: [
          { label: "Keystone role assignments", value: keystone.assignmentsRps },
          { label: "Arbor role bindings", value: arbor.assignmentsRps },
          { label: "Keystone create project", value: keystone.createRps },
          { label: "Arbor create group", value: arbor.createRps },
        ],
      },
    ],
    errors: keystone.errors + arbor.errors,
    notes:
      keystone.errors + arbor.errors > 0
        ? [`errors: Keystone ${keystone.errors}, Arbor ${arbor.errors} (non-2xx answers and socket errors under wrk).`]
        : [],
  };
}

async function measureKeystone(ctx: ScenarioContext, ks: Keystone, projects: number, people: number): Promise<Side> {
  const domain = (await keystoneApi<{ domain: { id: string } }>(ks, "POST", "/v3/domains", { domain: { name: "bench" } })).domain.id;
  const parent = (
    await keystoneApi<{ project: { id: string } }>(ks, "POST", "/v3/projects", { project: { name: "parent", domain_id: domain } })
  ).project.id;
  const roles = (await keystoneApi<{ roles: { id: string; name: string }[] }>(ks, "GET", "/v3/roles")).roles.filter((r) =>
    ["admin", "member", "reader"].includes(r.name),
  );
  const users: string[] = [];
  for (let i = 0; i < people; i++)
    users.push(
      (await keystoneApi<{ user: { id: string } }>(ks, "POST", "/v3/users", { user: { name: `user-${i}`, domain_id: domain } })).user.id,
    );
  const db = new Database(ks.database);
  try {
    db.pragma("busy_timeout = 30000");
    const project = db.prepare(
      "insert into project (id, name, extra, description, enabled, domain_id, parent_id, is_domain) values (?, ?, '{}', '', 1, ?, ?, 0)",
    );
    const assignment = db.prepare(
      "insert into assignment (type, actor_id, target_id, role_id, inherited) values ('UserProject', ?, ?, ?, 0)",
    );
    db.transaction(() => {
      for (let i = 1; i < projects; i++) project.run(randomBytes(16).toString("hex"), `p-${String(i).padStart(6, "0")}`, domain, domain);
      for (const u of users) for (const r of roles) assignment.run(u, parent, r.id);
    })();
  } finally {
    db.close();
  }
  ctx.log(
    `S8 Keystone: ${projects} projects in the domain (parent + ${projects - 1} generated), ${users.length * roles.length} assignments`,
  );
  const listPath = `/v3/projects?domain_id=${domain}`;
  const listAll = await roundsOf(ctx, "Keystone list", async () => {
    const res = await keystoneApi<{ projects: unknown[] }>(ks, "GET", listPath);
    if (res.projects.length !== projects) throw new Error(`Keystone listed ${res.projects.length} projects, not ${projects}`);
  });
  const headers = { "x-auth-token": ks.token };
  const assignments: WrkSpec = {
    url: `${ks.base}/v3/role_assignments?scope.project.id=${parent}&include_subtree=true`,
    headers,
    connections: CONNECTIONS,
    seconds: ctx.seconds,
  };
  const create = (prefix: string): WrkSpec => ({
    url: `${ks.base}/v3/projects`,
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: `{"project":{"name":"${prefix}-{n}","domain_id":"${domain}","parent_id":"${parent}"}}`,
    connections: CONNECTIONS,
    seconds: ctx.seconds,
  });
  return {
    listAllMs: listAll,
    ...(await rates(ctx, "Keystone", assignments, create)),
    commands: {
      list: `curl -H 'X-Auth-Token: …' 'http://127.0.0.1:$PORT${listPath.replace(domain, "$DOMAIN")}'`,
      assignments: wrkCommand(assignments),
      create: wrkCommand(create("r{round}")),
    },
  };
}

async function measureArbor(ctx: ScenarioContext, server: ArborProcess, dataDir: string, projects: number, people: number): Promise<Side> {
  const { org, token } = await bootstrapOrg(server.env, "bench-s8");
  const parent = (await api<{ uid: string }>(server.base, token, "POST", `/iam/v2beta1/groups/${org}`, { name: "parent" })).uid;
  for (let i = 0; i < people; i++) {
    const identity = await api<{ uid: string }>(server.base, token, "POST", `/iam/v2beta1/identities/${org}`, {
      name: `user-${i}`,
      claimMatch: { issuer: "https://issuer.example", subject: `user-${i}` },
    });
    for (const role of ROLES)
      await api(server.base, token, "POST", `/iam/v2beta1/roleBindings/${parent}`, {
        identityUid: identity.uid,
        roleUid: builtinRoleUid(role),
      });
  }
  await insertGroups({ engine: "sqlite", dataDir }, org, projects - 1);
  const first = `/iam/v2beta1/groups?uidp.descendants_of=${org}&page_size=200`;
  const listAll = await roundsOf(ctx, "Arbor list", async () => {
    let seen = 0;
    for (let path: string | undefined = first; path !== undefined;) {
      const page: { groups: unknown[]; nextPageToken?: string } = await api(server.base, token, "GET", path);
      seen += page.groups.length;
      path = page.nextPageToken ? `${first}&page_token=${encodeURIComponent(page.nextPageToken)}` : undefined;
    }
    if (seen !== projects) throw new Error(`Arbor listed ${seen} groups, not ${projects}`);
  });
  const headers = { authorization: `Bearer ${token}` };
  const assignments: WrkSpec = {
    url: `${server.base}/iam/v2beta1/roleBindings?uidp.descendants_of=${parent}&page_size=200`,
    headers,
    connections: CONNECTIONS,
    seconds: ctx.seconds,
  };
  const create = (prefix: string): WrkSpec => ({
    url: `${server.base}/iam/v2beta1/groups/${parent}`,
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: `{"name":"${prefix}-{n}"}`,
    connections: CONNECTIONS,
    seconds: ctx.seconds,
  });
  return {
    listAllMs: listAll,
    ...(await rates(ctx, "Arbor", assignments, create)),
    commands: {
      list: `GET http://127.0.0.1:$PORT${first.replace(org, "$ORG")}, then &page_token=… until no nextPageToken (bench/scenarios/s8-keystone.ts)`,
      assignments: wrkCommand(assignments),
      create: wrkCommand(create("r{round}")),
    },
  };
}

/** Median milliseconds of fn over the rounds, after one warm-up call. */
async function roundsOf(ctx: ScenarioContext, label: string, fn: () => Promise<void>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let round = 0; round < ctx.rounds; round++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
    ctx.log(`S8 ${label} round ${round + 1}: ${times.at(-1)?.toFixed(0)} ms`);
  }
  return median(times);
}

async function rates(
  ctx: ScenarioContext,
  name: string,
  assignments: WrkSpec,
  create: (prefix: string) => WrkSpec,
): Promise<{ assignmentsRps: number; createRps: number; errors: number }> {
  await runWrk({ ...assignments, seconds: 1 });
  const a = [];
  const c = [];
  for (let round = 0; round < ctx.rounds; round++) {
    a.push(await runWrk(assignments));
    c.push(await runWrk(create(`r${round}`)));
    ctx.log(
      `S8 ${name} round ${round + 1}: assignments ${a.at(-1)?.rps.toFixed(1)} req/s, create ${c.at(-1)?.rps.toFixed(1)}/s (errors ${(a.at(-1)?.errors ?? 0) + (c.at(-1)?.errors ?? 0)})`,
    );
  }
  return {
    assignmentsRps: median(a.map((r) => r.rps)),
    createRps: median(c.map((r) => r.rps)),
    errors: [...a, ...c].reduce((n, r) => n + r.errors, 0),
  };
}
