/**
 * S6: gRPC ListGroups over h2c on Arbor's shared port vs a plain @grpc/grpc-js server returning
 * the same message bytes, and vs @grpc/grpc-js on a port of its own running Arbor's services on
 * the same data; all loaded by the same @grpc/grpc-js client in its own process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { ListGroupsRequestSchema } from "../../src/gen/arbor/iam/v2beta1/groups_pb.js";
import { api, bootstrapOrg, freePort, startArbor } from "../lib/arbor-process.js";
import { startChildServer } from "../lib/child-server.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../lib/results.js";
import { median } from "../lib/stats.js";
import { runTool } from "../lib/tool.js";
import type { GrpcLoadResult, GrpcLoadSpec } from "../tools/grpc-load.js";

const METHOD = "/arbor.iam.v2beta1.GroupsService/ListGroups";
const CONCURRENCY = 32;
const CHANNELS = 4;
const PAGE = 20;

/** The scenario. */
export const s6Grpc: Scenario = { id: "S6", run };

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-bench-s6-"));
  const port = await freePort();
  const env = { ARBOR_DATA_DIR: dataDir };
  try {
    let server = await startArbor({ env, port });
    const { org, token } = await bootstrapOrg(server.env, "bench-s6");
    for (let i = 0; i < PAGE; i++)
      await api(server.base, token, "POST", `/iam/v2beta1/groups/${org}`, {
        name: `group-${i}`,
        description: `child ${i} of the organization`,
      });
    const request = Buffer.from(
      toBinary(ListGroupsRequestSchema, create(ListGroupsRequestSchema, { uidp: { childrenOf: org }, pageSize: PAGE })),
    ).toString("base64");
    const spec: GrpcLoadSpec = {
      target: `127.0.0.1:${port}`,
      method: METHOD,
      request,
      metadata: { authorization: `Bearer ${token}` },
      concurrency: CONCURRENCY,
      channels: CHANNELS,
      seconds: ctx.seconds,
    };
    const response = await captureResponse(spec);
    await server.stop();

    const arbor: GrpcLoadResult[] = [];
    const plain: GrpcLoadResult[] = [];
    const dedicated: GrpcLoadResult[] = [];
    for (let round = 0; round < ctx.rounds; round++) {
      server = await startArbor({ env, port });
      try {
        await runTool<GrpcLoadResult>("grpc-load", { ...spec, seconds: 1 });
        arbor.push(await runTool<GrpcLoadResult>("grpc-load", spec));
      } finally {
        await server.stop();
      }
      for (const [tool, toolSpec, into] of [
        ["grpc-plain-server", { port, response }, plain],
        [
          "grpc-js-arbor-server",
          {
            port,
            env: Object.fromEntries(Object.entries(server.env).filter(([k]) => k.startsWith("ARBOR_"))),
            // Where `arbor serve`'s log goes too (startArbor discards its stdout): the same logging on both sides.
            logTo: "/dev/null",
          },
          dedicated,
        ],
      ] as const) {
        const baseline = await startChildServer(tool, toolSpec);
        try {
          await runTool<GrpcLoadResult>("grpc-load", { ...spec, seconds: 1 });
          into.push(await runTool<GrpcLoadResult>("grpc-load", spec));
        } finally {
          await baseline.stop();
        }
      }
      ctx.log(
        `S6 round ${round + 1}: Arbor ${arbor.at(-1)?.rps.toFixed(0)} calls/s (errors ${arbor.at(-1)?.errors}), ` +
          `plain grpc-js ${plain.at(-1)?.rps.toFixed(0)} calls/s, ` +
          `grpc-js with Arbor's services ${dedicated.at(-1)?.rps.toFixed(0)} calls/s (errors ${dedicated.at(-1)?.errors})`,
      );
    }
    const arborRps = median(arbor.map((r) => r.rps));
    const plainRps = median(plain.map((r) => r.rps));
    const dedicatedRps = median(dedicated.map((r) => r.rps));
    const ratio = median(arbor.map((a, i) => a.rps / (plain[i] as GrpcLoadResult).rps));
    const sameWork = median(arbor.map((a, i) => a.rps / (dedicated[i] as GrpcLoadResult).rps));
    const errors = [...arbor, ...plain, ...dedicated].reduce((n, r) => n + r.errors, 0);
    const command =
      `node dist/bench/tools/grpc-load.js '{"target":"127.0.0.1:$PORT","method":"${METHOD}",` +
      `"request":"<ListGroupsRequest children_of org, page_size ${PAGE}>","metadata":{"authorization":"Bearer …"},` +
      `"concurrency":${CONCURRENCY},"channels":${CHANNELS},"seconds":${ctx.seconds}}'`;
    return {
      id: "S6",
      title: "gRPC ListGroups over h2c on the shared port vs a plain @grpc/grpc-js server",
      method: [
        `Arbor in its own process (SQLite, default log level, its stdout, where the log goes, on /dev/null) serves gRPC over h2c on ` +
          `its one port next to REST; the request lists the ${PAGE} children of an organization (a full page). Both baselines run in ` +
          `their own process on the same port, and all three are loaded by the same client, bench/tools/grpc-load.ts: @grpc/grpc-js with ` +
          `raw-bytes (de)serializers, ${CHANNELS} channels, ${CONCURRENCY} calls in flight, one warm-up second; ratios are taken per ` +
          `round.`,
        `Baseline 1, the floor of the transport: a plain \`@grpc/grpc-js\` server (bench/tools/grpc-plain-server.ts) whose ListGroups ` +
          `returns the very ListGroupsResponse bytes Arbor answered (${Buffer.from(response, "base64").length} bytes), with no ` +
          `authentication and no store.`,
        "Baseline 2, the same work on a dedicated gRPC server: `@grpc/grpc-js` on a port of its own " +
          "(bench/tools/grpc-js-arbor-server.ts) running Arbor's own services through Arbor's own call pipeline (token verification, " +
          "authorization, the store, the access log line and metrics) on the same data, logging as Arbor does: the same pino logger, " +
          "level, base and line fields, written asynchronously as pino's default destination writes Arbor's, to /dev/null. " +
          "Against it, the ratio measures what serving gRPC on the shared port " +
          "(node:http2 there, a unary call answered by src/server/connect/grpc-unary.ts) costs compared with the usual dedicated grpc-js " +
          "server, which is what the target is about; against baseline 1 " +
          "it also includes everything a real ListGroups does.",
      ],
      figures: [
        { label: "Arbor ListGroups calls/s", value: arborRps, unit: "/s", command },
        { label: "Arbor ListGroups p99", value: median(arbor.map((r) => r.p99)), unit: "ms", command },
        { label: "plain @grpc/grpc-js, canned bytes, calls/s", value: plainRps, unit: "/s", command },
        { label: "plain @grpc/grpc-js p99", value: median(plain.map((r) => r.p99)), unit: "ms", command },
        { label: "@grpc/grpc-js running Arbor's services, calls/s", value: dedicatedRps, unit: "/s", command },
        { label: "@grpc/grpc-js running Arbor's services, p99", value: median(dedicated.map((r) => r.p99)), unit: "ms", command },
        { label: "errors (all rounds)", value: errors, unit: "", command },
      ],
      checks: [
        {
          label: "Arbor vs grpc-js server doing the same work",
          measured: sameWork,
          unit: "×",
          op: "≥",
          bound: 1.0,
          how: "Arbor calls/s ÷ dedicated grpc-js calls/s, per round",
        },
        {
          label: "Arbor vs plain grpc-js server (canned bytes)",
          measured: ratio,
          unit: "×",
          op: "≥",
          bound: 1.0,
          how: "Arbor calls/s ÷ plain calls/s, per round",
        },
      ],
      charts: [
        {
          file: "s6-grpc",
          title: "S6: gRPC ListGroups calls/s (median)",
          unit: "/s",
          bars: [
            { label: "plain @grpc/grpc-js (canned bytes)", value: plainRps },
            { label: "@grpc/grpc-js + Arbor's services", value: dedicatedRps },
            { label: "Arbor, shared port (Connect)", value: arborRps },
          ],
        },
      ],
      errors,
      notes:
        errors > 0
          ? [`${errors} calls failed, e.g. ${[...arbor, ...plain, ...dedicated].find((r) => r.firstError)?.firstError ?? "?"}.`]
          : [],
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Arbor's answer to the request, as raw bytes (base64), from one call of the same client. */
async function captureResponse(spec: GrpcLoadSpec): Promise<string> {
  const { Client, credentials, Metadata } = await import("@grpc/grpc-js");
  const client = new Client(spec.target, credentials.createInsecure());
  const md = new Metadata();
  for (const [k, v] of Object.entries(spec.metadata)) md.set(k, v);
  try {
    return await new Promise<string>((resolve, reject) =>
      client.makeUnaryRequest(
        spec.method,
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from(spec.request, "base64"),
        md,
        (err, res) => (err || !res ? reject(err ?? new Error("no answer")) : resolve(res.toString("base64"))),
      ),
    );
  } finally {
    client.close();
  }
}
