/**
 * `node dist/bench/profile.js S1|S2|S3|S6|S8 [seconds]`: runs the built server with `node --cpu-prof`
 * under the S1 load (GET a group, 32 connections), the S2 load (list page 1 of 50 of an
 * organization of 100,000 groups, 8 connections), the S3 load (POST a group of a new name, 16
 * connections; PostgreSQL when BENCH_DATABASE_URL is set, in a schema of its own, else SQLite),
 * the S6 load (gRPC ListGroups of 20 children, the S6 client) or S8's role assignments (one page of
 * 102 bindings on a group, hydrated, 8 connections), stops it so V8 writes the profile,
 * and prints the summary of bench/tools/cpu-profile-summary.ts. For finding what to optimise; no
 * target.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { create, toBinary } from "@bufbuild/protobuf";
import { ListGroupsRequestSchema } from "../src/gen/arbor/iam/v2beta1/groups_pb.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtinRoleUid } from "../src/domain/roles.js";
import { api, arborEnv, bootstrapOrg, freePort, startArbor } from "./lib/arbor-process.js";
import { dropSchema, insertGroups } from "./lib/datasets.js";
import { runTool } from "./lib/tool.js";
import { runWrk } from "./lib/wrk.js";
import { createLoad } from "./scenarios/s3-create.js";
import type { GrpcLoadResult } from "./tools/grpc-load.js";
import { summarize } from "./tools/cpu-profile-summary.js";

const which = (process.argv[2] ?? "S1").toUpperCase();
const seconds = Number(process.argv[3] ?? 15);
if (!["S1", "S2", "S3", "S6", "S8"].includes(which)) throw new Error(`profile S1, S2, S3, S6 or S8, not ${which}`);
const databaseUrl = which === "S3" ? process.env.BENCH_DATABASE_URL : undefined;
const schema = `bench_profile_${process.pid}`;
const dataDir = mkdtempSync(join(tmpdir(), "arbor-profile-"));
const profDir = mkdtempSync(join(tmpdir(), "arbor-cpuprof-"));
try {
  const port = await freePort();
  const env: Record<string, string> = {
    ARBOR_DATA_DIR: dataDir,
    ...(databaseUrl !== undefined && { ARBOR_DATABASE_URL: databaseUrl, ARBOR_DATABASE_SCHEMA: schema }),
  };
  const { org, token } = await bootstrapOrg(arborEnv(port, env), "bench-profile");
  if (which === "S2") await insertGroups({ engine: "sqlite", dataDir }, org, Number(process.env.BENCH_S2_SQLITE_GROUPS ?? 100_000));
  const server = await startArbor({ env, port, nodeArgs: ["--cpu-prof", "--cpu-prof-dir", profDir] });
  try {
    const load = which === "S6" ? await grpcLoad(server.base, org, token) : await httpLoad(server.base, org, token);
    process.stderr.write(`${which} under --cpu-prof: ${load}\n`);
  } finally {
    await server.stop();
  }
  const file = readdirSync(profDir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error("the server wrote no .cpuprofile (did it exit cleanly on SIGTERM?)");
  process.stdout.write(`${summarize(JSON.parse(readFileSync(join(profDir, file), "utf8")))}\n`);
} finally {
  if (databaseUrl !== undefined) await dropSchema(databaseUrl, schema);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(profDir, { recursive: true, force: true });
}

async function httpLoad(base: string, org: string, token: string): Promise<string> {
  if (which === "S3") {
    const r = await runWrk(createLoad(base, org, token, "profile", seconds));
    return `${r.rps.toFixed(0)} creates/s, p99 ${r.p99.toFixed(2)} ms, errors ${r.errors}`;
  }
  const path =
    which === "S1"
      ? `/iam/v2beta1/groups/${(await api<{ uid: string }>(base, token, "POST", `/iam/v2beta1/groups/${org}`, { name: "target" })).uid}`
      : which === "S8"
        ? await assignmentsPath(base, org, token)
        : `/iam/v2beta1/groups?uidp.descendants_of=${org}&page_size=50`;
  const r = await runWrk({
    url: `${base}${path}`,
    headers: { authorization: `Bearer ${token}` },
    connections: which === "S1" ? 32 : 8,
    seconds,
  });
  return `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, errors ${r.errors}`;
}

/** S8's role assignments: a group with 34 identities bound in three built-in roles each, as arborSide sets up. */
async function assignmentsPath(base: string, org: string, token: string): Promise<string> {
  const parent = (await api<{ uid: string }>(base, token, "POST", `/iam/v2beta1/groups/${org}`, { name: "parent" })).uid;
  for (let i = 0; i < 34; i++) {
    const identity = await api<{ uid: string }>(base, token, "POST", `/iam/v2beta1/identities/${org}`, {
      name: `user-${i}`,
      claimMatch: { issuer: "https://issuer.example", subject: `user-${i}` },
    });
    for (const role of ["viewer", "editor", "owner"])
      await api(base, token, "POST", `/iam/v2beta1/roleBindings/${parent}`, { identityUid: identity.uid, roleUid: builtinRoleUid(role) });
  }
  return `/iam/v2beta1/roleBindings?uidp.descendants_of=${parent}&page_size=200`;
}

async function grpcLoad(base: string, org: string, token: string): Promise<string> {
  for (let i = 0; i < 20; i++)
    await api(base, token, "POST", `/iam/v2beta1/groups/${org}`, { name: `group-${i}`, description: `child ${i} of the organization` });
  const request = Buffer.from(
    toBinary(ListGroupsRequestSchema, create(ListGroupsRequestSchema, { uidp: { childrenOf: org }, pageSize: 20 })),
  ).toString("base64");
  const spec = {
    target: new URL(base).host,
    method: "/arbor.iam.v2beta1.GroupsService/ListGroups",
    request,
    metadata: { authorization: `Bearer ${token}` },
    concurrency: 32,
    channels: 4,
    seconds,
  };
  const r = await runTool<GrpcLoadResult>("grpc-load", spec);
  return `${r.rps.toFixed(0)} calls/s, p50 ${r.p50.toFixed(2)} ms, errors ${r.errors}`;
}
