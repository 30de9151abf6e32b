/**
 * S8: Arbor side by side with OpenStack Keystone on the same machine in the same run, Keystone as
 * its documentation recommends for production (PostgreSQL, memcached, one uWSGI worker per core)
 * and Arbor as its users run it (SQLite), their rounds interleaved: list a domain's 10,000
 * projects, list role assignments, create a nested project.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { STATISTICS_INTERVAL_MS } from "../../src/store/create-store.js";
import { api, bootstrapOrg, startArbor, type ArborProcess } from "../lib/arbor-process.js";
import { insertGroups } from "../lib/datasets.js";
import { keystoneApi, startKeystone, type Keystone } from "../lib/keystone.js";
import { sized } from "../lib/options.js";
import type { Check, Figure, Scenario, ScenarioContext, ScenarioResult } from "../lib/results.js";
import { median } from "../lib/stats.js";
import { runWrk, wrkCommand, type WrkResult, type WrkSpec } from "../lib/wrk.js";

const CONNECTIONS = 8;
const ROLES = ["viewer", "editor", "owner"];

/** The scenario. */
export const s8Keystone: Scenario = { id: "S8", run };

/** One side, set up: what a round runs against it. */
interface Side {
  name: "Keystone" | "Arbor";
  /** Fetches every project or group of the domain or organization; throws when any is missing. */
  listAll(): Promise<void>;
  assignments: WrkSpec;
  create(prefix: string): WrkSpec;
  commands: { list: string; assignments: string; create: string };
}

/** What the rounds measured of one side, a value per round. */
interface Measured {
  listMs: number[];
  assignments: WrkResult[];
  creates: WrkResult[];
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const projects = sized(process.env, "BENCH_S8_PROJECTS", 10_000, 10_000);
  const people = ctx.quick ? 10 : 34;
  const ks = await startKeystone(ctx.log, ctx.databaseUrl);
  try {
    const dataDir = mkdtempSync(join(tmpdir(), "arbor-bench-s8-"));
    try {
      const server = await startArbor({ env: { ARBOR_DATA_DIR: dataDir } });
      try {
        const keystone = await keystoneSide(ctx, ks, projects, people);
        const arbor = await arborSide(ctx, server, dataDir, projects, people);
        const [k, a] = await interleave(ctx, keystone, arbor);
        return result(ctx, ks, projects, people, [keystone, k], [arbor, a]);
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  } finally {
    await ks.stop();
  }
}

/**
 * Both sides run side by side, both servers up throughout: after a warm-up of each, every round
 * takes each measurement of one side then of the other, which side first alternating by round, so
 * a slow spell of the machine falls on both.
 */
async function interleave(ctx: ScenarioContext, keystone: Side, arbor: Side): Promise<[Measured, Measured]> {
  const measured = new Map<Side, Measured>([
    [keystone, { listMs: [], assignments: [], creates: [] }],
    [arbor, { listMs: [], assignments: [], creates: [] }],
  ]);
  for (const side of [keystone, arbor]) {
    await side.listAll();
    await runWrk({ ...side.assignments, seconds: 1 });
  }
  for (let round = 0; round < ctx.rounds; round++) {
    const order = round % 2 === 0 ? [keystone, arbor] : [arbor, keystone];
    for (const side of order) {
      const t0 = performance.now();
      await side.listAll();
      measured.get(side)?.listMs.push(performance.now() - t0);
    }
    for (const side of order) measured.get(side)?.assignments.push(await runWrk(side.assignments));
    for (const side of order) measured.get(side)?.creates.push(await runWrk(side.create(`r${round}`)));
    for (const side of order) {
      const m = measured.get(side) as Measured;
      const [a, c] = [m.assignments.at(-1) as WrkResult, m.creates.at(-1) as WrkResult];
      ctx.log(
        `S8 ${side.name} round ${round + 1}: list ${m.listMs.at(-1)?.toFixed(0)} ms, assignments ${a.rps.toFixed(1)} req/s, create ` +
          `${c.rps.toFixed(1)}/s (errors ${a.errors + c.errors})`,
      );
    }
  }
  return [measured.get(keystone) as Measured, measured.get(arbor) as Measured];
}

function result(
  ctx: ScenarioContext,
  ks: Keystone,
  projects: number,
  people: number,
  [keystone, k]: [Side, Measured],
  [arbor, a]: [Side, Measured],
): ScenarioResult {
  const errorsOf = (m: Measured) => [...m.assignments, ...m.creates].reduce((n, r) => n + r.errors, 0);
  const perRound = (f: (i: number) => number) => median(k.listMs.map((_, i) => f(i)));
  const rps = (rs: WrkResult[], i: number) => (rs[i] as WrkResult).rps;
  const ratio = (label: string, measured: number, how: string): Check => ({ label, measured, unit: "×", op: "≥", bound: 5, how });
  const figures: Figure[] = [];
  for (const [side, m] of [
    [keystone, k],
    [arbor, a],
  ] as const) {
    figures.push(
      {
        label: `${side.name}: list all ${projects.toLocaleString("en-US")} projects/groups`,
        value: median(m.listMs),
        unit: "ms",
        command: side.commands.list,
      },
      {
        label: `${side.name}: list role assignments/bindings (${people * 3})`,
        value: median(m.assignments.map((r) => r.rps)),
        unit: "req/s",
        command: side.commands.assignments,
      },
      {
        label: `${side.name}: create nested project/group`,
        value: median(m.creates.map((r) => r.rps)),
        unit: "/s",
        command: side.commands.create,
      },
      { label: `${side.name}: errors`, value: errorsOf(m), unit: "", command: side.commands.create },
    );
  }
  const [listK, listA] = [median(k.listMs), median(a.listMs)];
  const [assignK, assignA] = [median(k.assignments.map((r) => r.rps)), median(a.assignments.map((r) => r.rps))];
  const [createK, createA] = [median(k.creates.map((r) => r.rps)), median(a.creates.map((r) => r.rps))];
  return {
    id: "S8",
    title: "side by side with OpenStack Keystone (Keystone on PostgreSQL with memcached, same machine, rounds interleaved)",
    method: [
      `Keystone 2:22.0.2 from Debian bookworm (\`apt-get install keystone uwsgi-core uwsgi-plugin-python3 memcached python3-psycopg2 ` +
        `python3-memcache\`), set up as its documentation recommends for production rather than with Debian's defaults (SQLite, no ` +
        `cache): a PostgreSQL database of its own on the suite's PostgreSQL server (\`BENCH_DATABASE_URL\`; created for the run, dropped ` +
        `after), the cache enabled (\`keystone-manage doctor\` calls caching highly recommended) with memcached as its backend ` +
        `(\`dogpile.cache.memcached\`, which oslo.cache recommends for fewer than 100 threaded servers; a memcached of the run's own, 64 ` +
        `MB), fernet tokens (\`keystone-manage db_sync\`, \`fernet_setup\`, \`credential_setup\`, \`bootstrap\` with an admin password), ` +
        `logging to a file at its default level. Served by uWSGI, the server Debian's own keystone-uwsgi.ini uses (master, lazy apps, ` +
        `threads enabled, thunder lock), with HTTP/1.1 keep-alive (\`--http11-socket\`) on loopback and one worker process of one thread ` +
        `per core (${ks.processes} here; Python's GIL makes threads no faster for this CPU-bound work). Requests carry an admin token ` +
        `(X-Auth-Token), Arbor's the owner token; Arbor runs as its users run it and as in S1 (own process, SQLite, default log level).`,
      `Both servers are up for the whole run; after a warm-up of each (one list, one second of the assignments load), every round ` +
        `measures Keystone and Arbor in turn, list, then assignments, then create, which side first alternating by round, and each ratio ` +
        `is taken per round, median over the ${ctx.rounds} rounds.`,
      `List: a domain with ${projects.toLocaleString("en-US")} projects (generated straight into Keystone's \`project\` table; Arbor's ` +
        `${projects.toLocaleString("en-US")} groups straight into its store, as in S2, after which the run waits a minute for the ` +
        `running server to take their statistics at its next look, as it would after a user's bulk load). Keystone's ` +
        `\`GET /v3/projects?domain_id=…\` has no pagination and returns all of them in one answer; Arbor lists them as a client ` +
        `must, page by page of 200 ` +
        `(\`uidp.descendants_of\`, following nextPageToken, ${Math.ceil(projects / 200)} requests, each with totalCount). The figure is ` +
        `the time to have all of them, one client, sequential: the fair comparison, because it is what a user waits for and it charges ` +
        `Arbor its per-page overheads (auth, count) rather than comparing one Keystone request with one Arbor page.`,
      `Role assignments: ${people} users of the domain with three roles each on one project (${people * 3} assignments, written to ` +
        `Keystone's \`assignment\` table; users created through the API), \`GET ` +
        `/v3/role_assignments?scope.project.id=…&include_subtree=true\`; Arbor: ${people} identities with three built-in roles each on a ` +
        `group (through the API), \`GET /iam/v2beta1/roleBindings?uidp.descendants_of=…&page_size=200\` (one page, bindings hydrated ` +
        `with identity and role). Both answers are checked for all ${people * 3} before timing. Create: \`POST /v3/projects\` with a ` +
        `parent project (nested in a second domain) vs \`POST /iam/v2beta1/groups/{parent}\` (a group of a second organization), so that ` +
        `the projects and groups created over the rounds change neither the list nor the assignments' subtree. Both with wrk, ` +
        `${CONNECTIONS} connections, distinct names; any non-2xx answer or socket error, on either side, fails every target.`,
    ],
    figures,
    checks: [
      ratio(
        "list a domain's projects",
        perRound((i) => (k.listMs[i] as number) / (a.listMs[i] as number)),
        "Keystone ms ÷ Arbor ms, all items, per round",
      ),
      ratio(
        "list role assignments",
        perRound((i) => rps(a.assignments, i) / rps(k.assignments, i)),
        "Arbor req/s ÷ Keystone req/s, per round",
      ),
      ratio(
        "create project",
        perRound((i) => rps(a.creates, i) / rps(k.creates, i)),
        "Arbor /s ÷ Keystone /s, per round",
      ),
    ],
    charts: [
      {
        file: "s8-list",
        title: `S8: time to list ${projects.toLocaleString("en-US")} projects (ms, lower is better)`,
        unit: "ms",
        bars: [
          { label: "Keystone (one request)", value: listK },
          { label: `Arbor (${Math.ceil(projects / 200)} pages of 200)`, value: listA },
        ],
      },
      {
        file: "s8-rates",
        title: "S8: requests per second (higher is better)",
        unit: "/s",
        bars: [
          { label: "Keystone role assignments", value: assignK },
          { label: "Arbor role bindings", value: assignA },
          { label: "Keystone create project", value: createK },
          { label: "Arbor create group", value: createA },
        ],
      },
    ],
    errors: errorsOf(k) + errorsOf(a),
    notes:
      errorsOf(k) + errorsOf(a) > 0
        ? [`errors: Keystone ${errorsOf(k)}, Arbor ${errorsOf(a)} (non-2xx answers and socket errors under wrk).`]
        : [],
  };
}

async function keystoneSide(ctx: ScenarioContext, ks: Keystone, projects: number, people: number): Promise<Side> {
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
  const db = new pg.Client({ connectionString: ks.databaseUrl });
  await db.connect();
  try {
    await db.query("begin");
    await db.query(
      `insert into project (id, name, extra, description, enabled, domain_id, parent_id, is_domain)
       select md5($3::text || g::text), 'p-' || lpad(g::text, 6, '0'), '{}', '', true, $1, $1, false from generate_series(1, $2::int) g`,
      [domain, projects - 1, randomBytes(8).toString("hex")],
    );
    for (const u of users)
      for (const r of roles)
        await db.query("insert into assignment (type, actor_id, target_id, role_id, inherited) values ('UserProject', $1, $2, $3, false)", [
          u,
          parent,
          r.id,
        ]);
    await db.query("commit");
    await db.query("analyze");
  } finally {
    await db.end();
  }
  ctx.log(
    `S8 Keystone: ${projects} projects in the domain (parent + ${projects - 1} generated), ${users.length * roles.length} assignments`,
  );
  // Creates go to a domain of their own, so the list and the assignments' subtree stay as set up.
  const createDomain = (await keystoneApi<{ domain: { id: string } }>(ks, "POST", "/v3/domains", { domain: { name: "bench-creates" } }))
    .domain.id;
  const createParent = (
    await keystoneApi<{ project: { id: string } }>(ks, "POST", "/v3/projects", { project: { name: "parent", domain_id: createDomain } })
  ).project.id;
  const listPath = `/v3/projects?domain_id=${domain}`;
  const assignmentsPath = `/v3/role_assignments?scope.project.id=${parent}&include_subtree=true`;
  const listed = (await keystoneApi<{ role_assignments: unknown[] }>(ks, "GET", assignmentsPath)).role_assignments.length;
  if (listed !== people * 3) throw new Error(`Keystone listed ${listed} role assignments, not ${people * 3}`);
  const headers = { "x-auth-token": ks.token };
  const create = (prefix: string): WrkSpec => ({
    url: `${ks.base}/v3/projects`,
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: `{"project":{"name":"${prefix}-{n}","domain_id":"${createDomain}","parent_id":"${createParent}"}}`,
    connections: CONNECTIONS,
    seconds: ctx.seconds,
  });
  const assignments: WrkSpec = { url: `${ks.base}${assignmentsPath}`, headers, connections: CONNECTIONS, seconds: ctx.seconds };
  return {
    name: "Keystone",
    listAll: async () => {
      const res = await keystoneApi<{ projects: unknown[] }>(ks, "GET", listPath);
      if (res.projects.length !== projects) throw new Error(`Keystone listed ${res.projects.length} projects, not ${projects}`);
    },
    assignments,
    create,
    commands: {
      list: `curl -H 'X-Auth-Token: …' 'http://127.0.0.1:$PORT${listPath.replace(domain, "$DOMAIN")}'`,
      // Keystone's ids (32 hex digits) as placeholders, as elide() does Arbor's uids.
      assignments: wrkCommand(assignments).replace(parent, "$PROJECT"),
      create: wrkCommand(create("r{round}")).replace(createDomain, "$DOMAIN").replace(createParent, "$PARENT"),
    },
  };
}

async function arborSide(ctx: ScenarioContext, server: ArborProcess, dataDir: string, projects: number, people: number): Promise<Side> {
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
  // The server running on this store takes the grown table's statistics at its next look, as it
  // would for a user's bulk load; the list is measured once it has.
  await new Promise((resolve) => setTimeout(resolve, STATISTICS_INTERVAL_MS + 2_000));
  // Creates go to an organization of their own, so the list and the bindings' subtree stay as set up.
  const creates = await bootstrapOrg(server.env, "bench-s8-creates");
  const createParent = (
    await api<{ uid: string }>(server.base, creates.token, "POST", `/iam/v2beta1/groups/${creates.org}`, { name: "parent" })
  ).uid;
  const first = `/iam/v2beta1/groups?uidp.descendants_of=${org}&page_size=200`;
  const assignmentsPath = `/iam/v2beta1/roleBindings?uidp.descendants_of=${parent}&page_size=200`;
  const listed = (await api<{ roleBindings: unknown[] }>(server.base, token, "GET", assignmentsPath)).roleBindings.length;
  if (listed !== people * 3) throw new Error(`Arbor listed ${listed} role bindings, not ${people * 3}`);
  ctx.log(`S8 Arbor: ${projects} groups in the organization, ${listed} bindings`);
  const headers = { authorization: `Bearer ${token}` };
  const assignments: WrkSpec = { url: `${server.base}${assignmentsPath}`, headers, connections: CONNECTIONS, seconds: ctx.seconds };
  const create = (prefix: string): WrkSpec => ({
    url: `${server.base}/iam/v2beta1/groups/${createParent}`,
    method: "POST",
    headers: { authorization: `Bearer ${creates.token}`, "content-type": "application/json" },
    body: `{"name":"${prefix}-{n}"}`,
    connections: CONNECTIONS,
    seconds: ctx.seconds,
  });
  return {
    name: "Arbor",
    listAll: async () => {
      let seen = 0;
      for (let path: string | undefined = first; path !== undefined;) {
        const page: { groups: unknown[]; nextPageToken?: string } = await api(server.base, token, "GET", path);
        seen += page.groups.length;
        path = page.nextPageToken ? `${first}&page_token=${encodeURIComponent(page.nextPageToken)}` : undefined;
      }
      if (seen !== projects) throw new Error(`Arbor listed ${seen} groups, not ${projects}`);
    },
    assignments,
    create,
    commands: {
      list:
        `GET http://127.0.0.1:$PORT${first.replace(org, "$ORG")}, ` +
        "then &page_token=… until no nextPageToken (bench/scenarios/s8-keystone.ts)",
      assignments: wrkCommand(assignments),
      create: wrkCommand(create("r{round}")),
    },
  };
}
