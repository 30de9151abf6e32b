/**
 * E1: events (docs/events.md). How fast Arbor delivers events to a local sink, and what writing
 * the outbox costs S3's creates, on SQLite and on PostgreSQL.
 *
 * 1. Backlog: N groups created through the API, then a subscription (group.created, the
 *    organization and below) to a node:http sink on loopback (bench/lib/event-sink.ts) replayed
 *    from before the first: from the replay call to the Nth event at the sink.
 * 2. Creates: S3's wrk run against a server with ARBOR_EVENTS=off and one with events on (the
 *    default), and on the latter with one subscription delivering to the sink, the three
 *    interleaved each round (their order rotating). The sink counts what arrives while the load
 *    runs, then everything is waited for and checked.
 *
 * Every delivery round is checked against the outbox itself (read from the store): each event
 * expected received, once, in the outbox's order; anything else is an error.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { api, bootstrapOrg, startArbor, type ArborProcess } from "../lib/arbor-process.js";
import { dropSchema } from "../lib/datasets.js";
import { startEventSink, tally, type EventSink, type Tally } from "../lib/event-sink.js";
import { sized } from "../lib/options.js";
import type { Check, Figure, Scenario, ScenarioContext, ScenarioResult } from "../lib/results.js";
import { median } from "../lib/stats.js";
import { runWrk, wrkCommand, type WrkResult, type WrkSpec } from "../lib/wrk.js";

/** As S3. */
const CONNECTIONS = 16;
/** Concurrent API calls making the backlog. */
const BACKLOG_CLIENTS = 8;
/** How long the sink may take to receive what a round expects before the rest counts as missing. */
const DRAIN_TIMEOUT_MS = 180_000;
/** How long the outbox must stay still for the creates in flight at a load's end to be taken as committed. */
const QUIET_MS = 500;
const GROUP_CREATED = "dev.arbor.api.iam.group.created.v1";
/** The outbox's cost on creates, as a share of the rate with events off. */
const COST_BOUND = 15;

type Engine = "SQLite" | "PostgreSQL";
type Mode = "off" | "on" | "sink";
const MODES: Mode[] = ["off", "on", "sink"];

/** The scenario. */
export const e1Events: Scenario = { id: "E1", run };

interface EngineResult {
  engine: Engine;
  backlog: { rate: number; errors: number; tally: Tally[] };
  creates: Record<Mode, WrkResult[]>;
  /** Per round: 1 − on ÷ off and 1 − sink ÷ off, in %. */
  cost: number[];
  sinkCost: number[];
  /** Per sink round: events received while the load ran, per second, and what was left at its end. */
  steady: { rate: number; left: number }[];
  steadyTally: Tally[];
  command: string;
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const events = sized(process.env, "BENCH_E1_EVENTS", 1_000, 300);
  const sink = await startEventSink();
  try {
    const sqlite = await measure(ctx, "SQLite", sink, events);
    const postgres = await measure(ctx, "PostgreSQL", sink, events);
    return result(ctx, events, [sqlite, postgres]);
  } finally {
    await sink.close();
  }
}

function result(ctx: ScenarioContext, events: number, engines: EngineResult[]): ScenarioResult {
  const figures: Figure[] = [];
  const checks: Check[] = [];
  const notes: string[] = [];
  const backlogCommand =
    `replay of a ${events}-event backlog (BENCH_E1_EVENTS) to a node:http sink on loopback, ` +
    "one subscription (bench/scenarios/e1-events.ts)";
  for (const e of engines) {
    const E = e.engine;
    const rps = (m: Mode) => median(e.creates[m].map((r) => r.rps));
    const wrkErrors = (m: Mode) => e.creates[m].reduce((n, r) => n + r.errors, 0);
    const deliveryErrors = e.backlog.errors + e.steadyTally.reduce((n, t) => n + t.errors, 0);
    const steadyCommand = `${e.command} against events on with one subscription to the sink; events received during the run ÷ its length`;
    figures.push(
      {
        label: `${E} backlog delivered/s (${events} events, one subscription)`,
        value: e.backlog.rate,
        unit: "/s",
        command: backlogCommand,
      },
      {
        label: `${E} delivered/s while creates run (one subscription)`,
        value: median(e.steady.map((s) => s.rate)),
        unit: "/s",
        command: steadyCommand,
      },
      {
        label: `${E} events not yet delivered when the creates stop`,
        value: median(e.steady.map((s) => s.left)),
        unit: "",
        command: steadyCommand,
      },
      { label: `${E} creates/s, events off (ARBOR_EVENTS=off)`, value: rps("off"), unit: "/s", command: `${e.command} (ARBOR_EVENTS=off)` },
      { label: `${E} creates/s, events on, no subscription`, value: rps("on"), unit: "/s", command: e.command },
      { label: `${E} creates/s, events on, one subscription delivering`, value: rps("sink"), unit: "/s", command: steadyCommand },
      { label: `${E} outbox cost on creates (1 − on ÷ off)`, value: median(e.cost), unit: "%", command: e.command },
      { label: `${E} cost with one subscription delivering (1 − that ÷ off)`, value: median(e.sinkCost), unit: "%", command: e.command },
      {
        label: `${E} create errors (all rounds: off, on, delivering)`,
        value: wrkErrors("off") + wrkErrors("on") + wrkErrors("sink"),
        unit: "",
        command: e.command,
      },
      {
        label: `${E} delivery errors (missing, duplicate, out of order, unexpected; backlog and delivering rounds)`,
        value: deliveryErrors,
        unit: "",
        command: `${backlogCommand}; the delivering rounds' events against the outbox`,
      },
    );
    checks.push(
      {
        label: `${E} outbox cost on creates`,
        measured: median(e.cost),
        unit: "%",
        op: "≤",
        bound: COST_BOUND,
        how: `median over rounds of 1 − creates/s with events on ÷ creates/s with ARBOR_EVENTS=off, same round, ${CONNECTIONS} connections`,
        errors: wrkErrors("off") + wrkErrors("on"),
      },
      {
        label: `${E} events delivered once each, in order`,
        measured: deliveryErrors,
        unit: "errors",
        op: "≤",
        bound: 0,
        how: "the backlog's and the delivering rounds' events at the sink against the outbox",
        errors: deliveryErrors,
      },
    );
    const pct = (xs: number[]) => xs.map((x) => `${x.toFixed(1)} %`).join(", ");
    const spread = Math.max(...e.cost) - Math.min(...e.cost);
    const verdict = e.cost.every((c) => c > COST_BOUND)
      ? ` Every round is above the ${COST_BOUND} % target.`
      : e.cost.every((c) => c <= COST_BOUND)
        ? ` Every round is within the ${COST_BOUND} % target.`
        : spread > COST_BOUND
          ? ` The rounds spread over ${spread.toFixed(0)} points, more than the ${COST_BOUND} % target itself: ` +
            "this run's median does not decide the target either way."
          : "";
    notes.push(`${E} per round (in order): outbox cost ${pct(e.cost)}; with one subscription delivering ${pct(e.sinkCost)}.${verdict}`);
    if (wrkErrors("off") + wrkErrors("on") + wrkErrors("sink") > 0)
      notes.push(
        `${E}: ${wrkErrors("off")} creates failed with events off, ${wrkErrors("on")} with events on, ${wrkErrors("sink")} while ` +
          `delivering.`,
      );
    for (const [i, t] of [
      ...e.backlog.tally.map((t) => ["backlog", t] as const),
      ...e.steadyTally.map((t) => ["delivering", t] as const),
    ].entries())
      if (t[1].errors > 0) notes.push(`${E} ${t[0]} round ${i + 1}: ${JSON.stringify(t[1])}.`);
  }
  const [sqlite, postgres] = engines as [EngineResult, EngineResult];
  // Every failed create and every wrong delivery, on both engines: any of them fails every target.
  const errors = engines.reduce(
    (n, e) =>
      n +
      Object.values(e.creates)
        .flat()
        .reduce((m, r) => m + r.errors, 0) +
      e.backlog.errors +
      e.steadyTally.reduce((m, t) => m + t.errors, 0),
    0,
  );
  const bar = (e: EngineResult, m: Mode) => median(e.creates[m].map((r) => r.rps));
  return {
    id: "E1",
    title: "events delivered per second, and the outbox's cost on creates",
    errors,
    method: [
      `Events as users run them: Arbor in its own process (default log level, a fresh store each: SQLite in a new data dir, PostgreSQL ` +
        `in a schema of its own), \`ARBOR_ALLOW_HTTP_LOOPBACK_SINKS=true\`, and a sink that is a plain node:http server on 127.0.0.1 in ` +
        `the bench process answering 204. The sink checks each request is a binary-mode CloudEvent 1.0 (\`ce-id\`, \`ce-type\`, ` +
        `\`content-type: application/json\`, a bearer token, a JSON body with \`actor\` and \`body\`; the token's signature is not ` +
        `verified, so the sink stays cheap) and records its \`ce-id\` and arrival. Every delivery round is checked against the outbox ` +
        `read from the store: every \`group.created\` event of the round received, exactly once, in the outbox's order; a missing, ` +
        `repeated, out-of-order, unexpected or malformed delivery is an error, and errors fail the delivery check.`,
      `**Backlog.** ${events} groups (\`BENCH_E1_EVENTS\`) are created through the API (${BACKLOG_CLIENTS} concurrent clients), then ` +
        `one subscription is created (types \`${GROUP_CREATED}\`, the organization and below). Each round replays it from before the ` +
        `first of them (\`POST /events/v2beta1/subscriptions/{uid}:replay\`, fromTime) and times from that call to the ${events}th event ` +
        `at the sink; the figure is ${events} ÷ that time, median over ${ctx.rounds} rounds. Delivery is one request at a time per ` +
        `subscription (docs/events.md), so this is one subscription's rate, sink round trip and cursor write included.`,
      `**Creates.** S3's load exactly (wrk, ${CONNECTIONS} keep-alive connections, \`POST /iam/v2beta1/groups/{org}\` with a new name ` +
        `each request, ${ctx.seconds} s a round) against two servers started side by side, one with \`ARBOR_EVENTS=off\` (no outbox row ` +
        `written, no delivery loop: the baseline, a setting operators have) and one with events on, the default. Each round runs three ` +
        `loads, their order rotating from round to round: events off; events on without a subscription (every create writes its outbox ` +
        `row, and each commit wakes the delivery loop, which looks for due subscriptions and finds none: all of what turning events on ` +
        `costs a create); events on with one subscription delivering every create to the sink, created just before the load and deleted ` +
        `once everything arrived. The outbox's cost is 1 − (creates/s on ÷ creates/s off) of the same round, median over ${ctx.rounds} ` +
        `rounds; its target is ${COST_BOUND} %. In the delivering rounds, the sink's count of events received while wrk ran, ÷ the run's ` +
        `length, is the steady-state delivery rate; what was not yet delivered when wrk stopped is reported, then waited for and ` +
        `checked. After every load the harness waits for the outbox to stay still for ${QUIET_MS} ms (the creates wrk left in flight ` +
        `commit), so that a round's expected events are all of its creates and the next round starts on a settled server.`,
      "This shared two-core machine runs wrk, Arbor, the sink (and PostgreSQL) on the same cores, so absolute rates are indicative; " +
        "the cost ratio compares loads of the same round.",
    ],
    figures,
    checks,
    charts: [
      {
        file: "e1-creates",
        title: "E1: create group per second, events off / on / delivering (median)",
        unit: "/s",
        bars: [
          { label: "SQLite, events off", value: bar(sqlite, "off") },
          { label: "SQLite, events on", value: bar(sqlite, "on") },
          { label: "SQLite, on, delivering", value: bar(sqlite, "sink") },
          { label: "PostgreSQL, events off", value: bar(postgres, "off") },
          { label: "PostgreSQL, events on", value: bar(postgres, "on") },
          { label: "PostgreSQL, on, delivering", value: bar(postgres, "sink") },
        ],
      },
      {
        file: "e1-delivery",
        title: "E1: events delivered per second to a local sink, one subscription (median)",
        unit: "/s",
        bars: [
          { label: "SQLite, backlog", value: sqlite.backlog.rate },
          { label: "SQLite, while creates run", value: median(sqlite.steady.map((s) => s.rate)) },
          { label: "PostgreSQL, backlog", value: postgres.backlog.rate },
          { label: "PostgreSQL, while creates run", value: median(postgres.steady.map((s) => s.rate)) },
        ],
      },
    ],
    notes,
  };
}

/** A server of the scenario with its organization, and its outbox read from the store. */
interface Served {
  server: ArborProcess;
  org: string;
  token: string;
  outbox: OutboxReader;
  close(): Promise<void>;
}

async function serve(ctx: ScenarioContext, engine: Engine, name: string, settings: Record<string, string>): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), `arbor-bench-e1-${name}-`));
  const schema = `bench_e1_${name}_${process.pid}`;
  const env: Record<string, string> = {
    ARBOR_DATA_DIR: dataDir,
    ...(engine === "PostgreSQL" && { ARBOR_DATABASE_URL: ctx.databaseUrl, ARBOR_DATABASE_SCHEMA: schema }),
    ...settings,
  };
  const cleanup = async () => {
    if (engine === "PostgreSQL") await dropSchema(ctx.databaseUrl, schema);
    rmSync(dataDir, { recursive: true, force: true });
  };
  let server: ArborProcess | undefined;
  try {
    server = await startArbor({ env });
    const { org, token } = await bootstrapOrg(server.env, `bench-e1-${name}`);
    const outbox = await openOutbox(engine === "SQLite" ? { dataDir } : { url: ctx.databaseUrl, schema });
    const started = server;
    return {
      server,
      org,
      token,
      outbox,
      async close() {
        await outbox.close();
        await started.stop();
        await cleanup();
      },
    };
  } catch (e) {
    await server?.stop();
    await cleanup();
    throw e;
  }
}

async function measure(ctx: ScenarioContext, engine: Engine, sink: EventSink, events: number): Promise<EngineResult> {
  const backlog = await measureBacklog(ctx, engine, sink, events);
  const off = await serve(ctx, engine, "off", { ARBOR_EVENTS: "off" });
  try {
    const on = await serve(ctx, engine, "on", { ARBOR_ALLOW_HTTP_LOOPBACK_SINKS: "true" });
    try {
      const spec = (s: Served, prefix: string, seconds: number): WrkSpec => ({
        url: `${s.server.base}/iam/v2beta1/groups/${s.org}`,
        method: "POST",
        headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
        body: `{"name":"${prefix}-{n}"}`,
        connections: CONNECTIONS,
        seconds,
      });
      await runWrk(spec(off, "warm", 1));
      await runWrk(spec(on, "warm", 1));
      const creates: Record<Mode, WrkResult[]> = { off: [], on: [], sink: [] };
      const steady: EngineResult["steady"] = [];
      const steadyTally: Tally[] = [];
      const cost: number[] = [];
      const sinkCost: number[] = [];
      for (let round = 0; round < ctx.rounds; round++) {
        const order = MODES.map((_, i) => MODES[(i + round) % MODES.length] as Mode);
        const got: Partial<Record<Mode, WrkResult>> = {};
        for (const mode of order) {
          const target = mode === "off" ? off : on;
          const load = spec(target, `r${round}${mode}`, ctx.seconds);
          if (mode !== "sink") {
            got[mode] = await runWrk(load);
            if (mode === "on") await quiesce(on);
          } else {
            const d = await delivering(on, sink, () => runWrk(load));
            got.sink = d.wrk;
            steady.push(d.steady);
            steadyTally.push(d.tally);
          }
          const r = got[mode] as WrkResult;
          creates[mode].push(r);
          ctx.log(`E1 ${engine} round ${round + 1} ${mode}: ${r.rps.toFixed(0)} creates/s, p99 ${r.p99.toFixed(2)} ms, errors ${r.errors}`);
        }
        const [o, n, s] = [got.off, got.on, got.sink] as [WrkResult, WrkResult, WrkResult];
        cost.push((1 - n.rps / o.rps) * 100);
        sinkCost.push((1 - s.rps / o.rps) * 100);
        ctx.log(`E1 ${engine} round ${round + 1}: outbox cost ${cost.at(-1)?.toFixed(1)} %, delivering ${sinkCost.at(-1)?.toFixed(1)} %`);
      }
      return {
        engine,
        backlog,
        creates,
        cost,
        sinkCost,
        steady,
        steadyTally,
        command: wrkCommand(spec(on, "r{round}{mode}", ctx.seconds)),
      };
    } finally {
      await on.close();
    }
  } finally {
    await off.close();
  }
}

/**
 * One delivering round: a subscription to the sink, the load, then every event of the round
 * waited for and checked against the outbox; the subscription is deleted at the end.
 */
async function delivering(
  s: Served,
  sink: EventSink,
  load: () => Promise<WrkResult>,
): Promise<{ wrk: WrkResult; steady: { rate: number; left: number }; tally: Tally }> {
  const subscription = await subscribe(s, sink);
  try {
    const from = await s.outbox.end();
    sink.reset();
    const start = performance.now();
    const wrk = await load();
    const end = performance.now();
    const during = new Set(sink.arrivals.filter((a) => a.at <= end).map((a) => a.id)).size;
    await quiesce(s);
    const expected = await s.outbox.created(from, await s.outbox.end());
    await sink.until((a) => a.length >= expected.length, DRAIN_TIMEOUT_MS);
    const t = tally(expected, sink.arrivals, sink.malformed);
    return { wrk, steady: { rate: during / ((end - start) / 1000), left: expected.length - during }, tally: t };
  } finally {
    await api(s.server.base, s.token, "DELETE", `/events/v2beta1/subscriptions/${subscription}`);
  }
}

/** The backlog phase on a server of its own: the median rate and the rounds' tallies. */
async function measureBacklog(ctx: ScenarioContext, engine: Engine, sink: EventSink, events: number): Promise<EngineResult["backlog"]> {
  const s = await serve(ctx, engine, "backlog", { ARBOR_ALLOW_HTTP_LOOPBACK_SINKS: "true" });
  try {
    const fromTime = new Date(Date.now() - 1_000).toISOString();
    const from = await s.outbox.end();
    await createGroups(s, events);
    const expected = await s.outbox.created(from, await s.outbox.end());
    if (expected.length !== events) throw new Error(`the outbox holds ${expected.length} group creates, not ${events}`);
    const subscription = await subscribe(s, sink);
    const rates: number[] = [];
    const tallies: Tally[] = [];
    for (let round = 0; round < ctx.rounds; round++) {
      await settled(s, subscription);
      sink.reset();
      const start = performance.now();
      await api(s.server.base, s.token, "POST", `/events/v2beta1/subscriptions/${subscription}:replay`, { fromTime });
      const done = await sink.until((a) => a.length >= events, DRAIN_TIMEOUT_MS);
      const last = sink.arrivals.at(-1)?.at ?? performance.now();
      const t = tally(expected, sink.arrivals, sink.malformed);
      rates.push(done ? events / ((last - start) / 1000) : NaN);
      tallies.push(t);
      ctx.log(`E1 ${engine} backlog round ${round + 1}: ${rates.at(-1)?.toFixed(0)} events/s, errors ${t.errors}`);
    }
    return { rate: median(rates), errors: tallies.reduce((n, t) => n + t.errors, 0), tally: tallies };
  } finally {
    await s.close();
  }
}

/** A subscription to the sink for every group created in the organization and below; its uid. */
async function subscribe(s: Served, sink: EventSink): Promise<string> {
  const made = await api<{ uid: string }>(s.server.base, s.token, "POST", `/events/v2beta1/subscriptions/${s.org}`, {
    sink: sink.url,
    types: [GROUP_CREATED],
    includeDescendants: true,
  });
  return made.uid;
}

/**
 * Waits for the creates wrk left in flight when it stopped (it closes its connections, the
 * server still commits them): until the outbox's end has not moved for QUIET_MS. A round's
 * expected events are read after it, and the next round starts after it.
 */
async function quiesce(s: Served): Promise<void> {
  let last = await s.outbox.end();
  for (;;) {
    await new Promise((r) => setTimeout(r, QUIET_MS));
    const now = await s.outbox.end();
    if (now === last) return;
    last = now;
  }
}

/** Waits until the subscription has nothing pending (its cursor past the outbox's end). */
async function settled(s: Served, subscription: string): Promise<void> {
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const got = await api<{ pending?: string }>(s.server.base, s.token, "GET", `/events/v2beta1/subscriptions/${subscription}`);
    if (Number(got.pending ?? 0) === 0) return;
    if (performance.now() > deadline) throw new Error(`subscription ${subscription} still has ${got.pending} events pending`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Creates count groups under the organization through the API, a few clients at once. */
async function createGroups(s: Served, count: number): Promise<void> {
  let next = 0;
  const client = async () => {
    for (let i = next++; i < count; i = next++)
      await api(s.server.base, s.token, "POST", `/iam/v2beta1/groups/${s.org}`, { name: `backlog-${String(i).padStart(6, "0")}` });
  };
  await Promise.all(Array.from({ length: BACKLOG_CLIENTS }, client));
}

/** The outbox read straight from the store: where it ends, and the group creates after a place, in delivery order. */
interface OutboxReader {
  /** The largest position written so far (0 when empty). */
  end(): Promise<number>;
  /** The ids of group.created events with a position in (after, upTo], in (xid, position) order. */
  created(after: number, upTo: number): Promise<string[]>;
  close(): Promise<void>;
}

async function openOutbox(at: { dataDir: string } | { url: string; schema: string }): Promise<OutboxReader> {
  const ids = `select id from event_outbox where type = '${GROUP_CREATED}'`;
  if ("dataDir" in at) {
    const db = new Database(join(at.dataDir, "arbor.db"), { readonly: true });
    db.pragma("busy_timeout = 10000");
    const end = db.prepare<[], { p: number }>("select coalesce(max(position), 0) as p from event_outbox");
    const created = db.prepare<[number, number], { id: string }>(`${ids} and position > ? and position <= ? order by xid, position`);
    return {
      end: () => Promise.resolve((end.get() as { p: number }).p),
      created: (after, upTo) => Promise.resolve(created.all(after, upTo).map((r) => r.id)),
      close: () => Promise.resolve(void db.close()),
    };
  }
  if (!/^[a-z_][a-z0-9_]*$/.test(at.schema)) throw new Error(`not a schema name: ${at.schema}`);
  const client = new pg.Client({ connectionString: at.url });
  await client.connect();
  await client.query(`set search_path to "${at.schema}"`);
  return {
    end: async () =>
      Number((await client.query<{ p: string }>("select coalesce(max(position), 0) as p from event_outbox")).rows[0]?.p ?? 0),
    created: async (after, upTo) =>
      (await client.query<{ id: string }>(`${ids} and position > $1 and position <= $2 order by xid, position`, [after, upTo])).rows.map(
        (r) => r.id,
      ),
    close: () => client.end(),
  };
}
