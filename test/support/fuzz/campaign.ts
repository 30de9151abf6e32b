/**
 * A fuzz campaign: batches of hostile cases drawn from one seed (batch i from seed + i, so any
 * batch can be replayed alone), sent concurrently, each answer checked; after each batch the
 * server must still be healthy, and a batch in which every write was refused must have left the
 * store's rows exactly as they were.
 */
import type { DescMethod } from "@bufbuild/protobuf";
import fc from "fast-check";
import type { Route } from "../../../src/server/rest/route-table.js";
import { connectCaseArb, grpcCaseArb, type GrpcCase } from "./rpc-cases.js";
import { fixedCaseArb } from "./fixed-cases.js";
import { routeCaseArb, type CaseContext, type HttpCase } from "./rest-cases.js";
import { createSender, type Sender } from "./send.js";
import { diffSnapshots, type Snapshot } from "./snapshot.js";
import { checkConnect, checkGrpc, checkHttp } from "./verdict.js";

/** What a campaign runs. */
export interface CampaignOptions {
  seed: number;
  cases: number;
  /** Cases per batch: the unit of the health and no-change checks. */
  batchSize: number;
  /** Requests in flight at once. */
  concurrency: number;
  routes: readonly Route[];
  methods: readonly DescMethod[];
  context: CaseContext;
  baseUrl: string;
  /** The store's rows now. */
  snapshot(): Promise<Snapshot>;
}

/** A case that broke an invariant, with what it sent. */
export interface Failure {
  batch: number;
  target: string;
  sent: string;
  problems: string[];
}

/** What a campaign did. */
export interface CampaignResult {
  seed: number;
  sent: number;
  /** Cases node:http would not put on the wire (invalid header bytes and the like). */
  unsendable: number;
  byKind: Record<string, number>;
  /** HTTP status (or grpc-status) to count. */
  byOutcome: Record<string, number>;
  /** Answers that were UNAVAILABLE (HTTP 503, or gRPC status 14): each checked deliberate, all bounded. */
  unavailable: number;
  /** Batches whose writes were all refused and whose data was compared, and those with a successful write. */
  comparedBatches: number;
  writingBatches: number;
  failures: Failure[];
  ms: number;
}

type AnyCase = { kind: "http"; c: HttpCase; safe: boolean; oauth: boolean } | { kind: "grpc"; c: GrpcCase; safe: boolean };

const READ_ONLY_RPC = /^(Get|List|Lookup|Explain|Ping)/;
const READ_ONLY_PATH = /^\/(healthz|readyz|metrics|\.well-known\/|ping\/)/;

/** The mix of cases: REST routes, other endpoints, Connect and gRPC, every route and method alike. */
export function caseArb(options: Pick<CampaignOptions, "routes" | "methods" | "context">): fc.Arbitrary<AnyCase> {
  const { routes, methods, context } = options;
  const rest = routes.map((r) =>
    routeCaseArb(r, context).map((c): AnyCase => ({ kind: "http", c, safe: r.httpMethod === "GET" && c.method === "GET", oauth: false })),
  );
  const connect = methods.map((m) =>
    connectCaseArb(m, context).map((c): AnyCase => ({ kind: "http", c, safe: READ_ONLY_RPC.test(m.name), oauth: false })),
  );
  const grpc = methods.map((m) => grpcCaseArb(m, context).map((c): AnyCase => ({ kind: "grpc", c, safe: READ_ONLY_RPC.test(m.name) })));
  const fixed = fixedCaseArb(context).map((c): AnyCase => ({
    kind: "http",
    c,
    safe: READ_ONLY_PATH.test(c.path),
    oauth: /^\/(oauth|sts)\//.test(c.path),
  }));
  return fc.oneof(
    { weight: 6, arbitrary: fc.oneof(...rest) },
    { weight: 2, arbitrary: fc.oneof(...connect) },
    { weight: 2, arbitrary: fc.oneof(...grpc) },
    { weight: 1, arbitrary: fixed },
  );
}

/** Runs the campaign. Failures are collected (the first 50), not thrown, so one report shows them all. */
export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const start = Date.now();
  const arb = caseArb(options);
  const sender = createSender(options.baseUrl, options.concurrency);
  const result: CampaignResult = {
    seed: options.seed,
    sent: 0,
    unsendable: 0,
    byKind: {},
    byOutcome: {},
    unavailable: 0,
    comparedBatches: 0,
    writingBatches: 0,
    failures: [],
    ms: 0,
  };
  try {
    let before = await options.snapshot();
    for (let batch = 0; result.sent + result.unsendable < options.cases; batch++) {
      const size = Math.min(options.batchSize, options.cases - result.sent - result.unsendable);
      const cases = fc.sample(arb, { seed: options.seed + batch, numRuns: size });
      let wrote = false;
      await pool(cases, options.concurrency, async (one) => {
        const outcome = await runOne(sender, one, batch, result);
        if (outcome === "wrote") wrote = true;
      });
      const health = await sender.http({ method: "GET", path: "/healthz", headers: {}, target: "health" });
      if (health.status !== 200)
        throw new Error(`the server is unhealthy after batch ${batch} (seed ${options.seed + batch}): ${health.status}`);
      const after = await options.snapshot();
      if (wrote) {
        result.writingBatches++;
      } else {
        result.comparedBatches++;
        const diff = diffSnapshots(before, after);
        if (diff.length > 0)
          note(result, { batch, target: "store", sent: `batch ${batch} (seed ${options.seed + batch})`, problems: diff });
      }
      before = after;
    }
  } finally {
    sender.close();
  }
  result.ms = Date.now() - start;
  return result;
}

async function runOne(sender: Sender, one: AnyCase, batch: number, result: CampaignResult): Promise<"wrote" | "kept"> {
  const kind =
    one.kind === "grpc"
      ? "grpc"
      : one.c.target.split(" ")[0] === "connect"
        ? "connect"
        : one.c.target.startsWith("fixed")
          ? "fixed"
          : "rest";
  result.byKind[kind] = (result.byKind[kind] ?? 0) + 1;
  let problems: string[];
  let succeeded: boolean;
  try {
    if (one.kind === "grpc") {
      const a = await sender.grpc(one.c);
      const code = a.headers["grpc-status"];
      count(result, `grpc ${String(code ?? `HTTP ${a.status}`)}`);
      if (a.status === 503 || String(code) === "14") result.unavailable++;
      problems = checkGrpc(a, one.c.headers["content-type"] ?? "");
      succeeded = a.status === 200 && String(code) === "0";
    } else {
      const a = await sender.http(one.c);
      if (a.status === undefined) {
        result.unsendable++;
        return "kept";
      }
      count(result, `http ${a.status}`);
      if (a.status === 503) result.unavailable++;
      // A HEAD answer has no body by definition: only its status is checked.
      problems = kind === "connect" ? checkConnect(a) : checkHttp(a, !one.oauth && one.c.method !== "HEAD");
      succeeded = a.status < 400;
    }
  } catch (e) {
    // Node's parser refuses some request heads (too large, an unknown method, raw bytes it will
    // not take in the target) and closes the connection while a body is still being sent. The
    // head alone, sent again, must then draw that refusal; anything else is a real failure.
    const refusedHead = one.kind === "http" && (await parserRefusal(sender, one.c));
    problems = refusedHead ? [] : [`transport: ${(e as Error).message}`];
    succeeded = false;
  }
  result.sent++;
  if (problems.length > 0) note(result, { batch, target: one.c.target, sent: describe(one), problems });
  return succeeded && !one.safe ? "wrote" : "kept";
}

/** Whether the head of c alone draws Node's own refusal (no handler ran: no body, no content type). */
async function parserRefusal(sender: Sender, c: HttpCase): Promise<boolean> {
  try {
    const a = await sender.http({ ...c, body: undefined });
    return a.status !== undefined && [400, 413, 431].includes(a.status) && a.body.length === 0 && a.headers["content-type"] === undefined;
  } catch {
    return false;
  }
}

function count(result: CampaignResult, outcome: string): void {
  result.byOutcome[outcome] = (result.byOutcome[outcome] ?? 0) + 1;
}

function note(result: CampaignResult, failure: Failure): void {
  if (result.failures.length < 50) result.failures.push(failure);
}

/** A case as a short text a person can replay by hand. */
function describe(one: AnyCase): string {
  const c = one.c;
  const method = one.kind === "grpc" ? "POST(h2)" : (one.c as HttpCase).method;
  const body = c.body === undefined ? "" : ` body(${c.body.length})=${JSON.stringify(c.body.subarray(0, 300).toString("latin1"))}`;
  const headers = Object.entries(c.headers)
    .map(([k, v]) => `${k}: ${String(v).slice(0, 80)}`)
    .join("; ");
  return `${method} ${c.path.slice(0, 300)} [${headers}]${body}`;
}

/** Runs fn over items, at most limit at a time. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
