/**
 * PostgreSQL taken away under load (docs/reliability.md): through a TCP proxy the test controls,
 * the store is refused, then blackholed. Every request started while it is away must fail fast
 * (REST 503, gRPC code 14 UNAVAILABLE, none past OUTAGE_BOUND_MS however late it ends), /readyz
 * must say not ready, the process must stay up, and Arbor must recover by itself once the store is
 * back. The shared PostgreSQL is never touched.
 */
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { call, loadProtos } from "../support/grpc.js";
import { startServer, type ArborServer } from "../../src/server/server.js";
import { resolveConfig } from "../../src/config.js";
import { pino } from "pino";
import { createOrganization } from "../../src/services/iam/groups-store-ops.js";
import { adminIdentityUid } from "../../src/domain/identities.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";
import { printFigures } from "../support/figures.js";
import { outageViolations, startedDuring, type OutageSample, type OutageWindow } from "../support/outage-verdict.js";

/** No request may take longer than this while the store is away. */
const OUTAGE_BOUND_MS = 5_000;
const CONNECT_TIMEOUT_MS = 1_000;
const QUERY_TIMEOUT_MS = 2_000;
const WORKERS = 8;

const pkg = loadProtos(["arbor/iam/v2beta1/groups.proto"]);
const postgres = engines.find((e) => e.name === "postgres");

describe.skipIf(postgres?.skipReason !== undefined)("a PostgreSQL outage under load", () => {
  let proxy: TcpProxy;
  let server: ArborServer;
  let dispose: () => Promise<void>;
  let org: string;
  let token: string;
  let client: grpc.Client;

  beforeAll(async () => {
    if (postgres === undefined) return;
    const location = await postgres.location();
    dispose = location.dispose;
    const target = new URL(location.options.databaseUrl ?? "");
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    target.host = `127.0.0.1:${proxy.port}`;
    server = await startServer(
      {
        ...resolveConfig({ env: {} }),
        port: 0,
        host: "127.0.0.1",
        dataDir: location.options.dataDir,
        databaseUrl: target.href,
        databaseSchema: location.options.schema,
        databaseConnectTimeoutMs: CONNECT_TIMEOUT_MS,
        databaseQueryTimeoutMs: QUERY_TIMEOUT_MS,
      },
      { logger: pino({ level: "silent" }) },
    );
    const group = await createOrganization(server.deps, { name: "outage", description: "" }, adminIdentityUid);
    org = group.uid;
    token = (await server.tokens.issue(adminIdentityUid(org), server.url)).token;
    client = new pkg.arbor.iam.v2beta1.GroupsService(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
    await proxy?.close();
    await dispose?.();
  });

  /** One request of each kind, in turn: a REST read, a REST write, a gRPC read. */
  async function request(i: number): Promise<OutageSample> {
    const start = Date.now();
    const kind = ["rest get", "rest create", "grpc get"][i % 3] as string;
    let outcome: string;
    try {
      if (kind === "grpc get") {
        await call(client, "getGroup", { uid: org }, token);
        outcome = "ok";
      } else {
        const res = await fetch(
          kind === "rest get" ? `${server.url}/iam/v2beta1/groups/${org}` : `${server.url}/iam/v2beta1/groups/${org}`,
          {
            method: kind === "rest get" ? "GET" : "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            ...(kind === "rest create" && { body: JSON.stringify({ name: `g${start}-${i}-${Math.random().toString(36).slice(2, 8)}` }) }),
            signal: AbortSignal.timeout(30_000),
          },
        );
        const body = (await res.json()) as { code?: number };
        outcome = res.status === 200 ? "ok" : `http ${res.status} code ${body.code}`;
      }
    } catch (e) {
      const code = (e as grpc.ServiceError).code;
      outcome = code !== undefined ? `grpc code ${code}` : `error ${(e as Error).message}`;
    }
    return { kind, start, ms: Date.now() - start, outcome };
  }

  /** Runs the load until stopped; every sample is kept. */
  function load(): { samples: OutageSample[]; stop: () => Promise<void> } {
    const samples: OutageSample[] = [];
    let running = true;
    const workers = Array.from({ length: WORKERS }, async (_, w) => {
      for (let i = w; running; i += WORKERS) samples.push(await request(i));
    });
    return {
      samples,
      stop: async () => {
        running = false;
        await Promise.all(workers);
      },
    };
  }

  async function readyz(): Promise<number> {
    return (await fetch(`${server.url}/readyz`, { signal: AbortSignal.timeout(30_000) })).status;
  }

  for (const mode of ["refuse", "blackhole"] as const) {
    it(`fails fast while the store is ${mode === "refuse" ? "refusing connections" : "blackholed"}, and recovers by itself`, async () => {
      const running = load();
      await new Promise((r) => setTimeout(r, 1_000));
      const healthy = running.samples.filter((s) => s.outcome === "ok").length;
      const cutAt = Date.now();
      await proxy.cut(mode);
      const outageFrom = Date.now();
      await new Promise((r) => setTimeout(r, 4_000));
      const readyStart = Date.now();
      const readyWhileDown = await readyz();
      const readyMs = Date.now() - readyStart;
      const health = (await fetch(`${server.url}/healthz`)).status;
      await new Promise((r) => setTimeout(r, 2_000));
      const restoreAt = Date.now();
      await proxy.restore();
      const outageTo = Date.now();
      let recoveredAt = 0;
      while (Date.now() - restoreAt < 30_000) {
        if ((await readyz()) === 200) {
          recoveredAt = Date.now();
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 500));
      await running.stop();

      // Every request started while the store was away is judged, however late it ended (one that
      // waited for the store to come back broke the bound all the same); those started before the
      // cut may have been served.
      const window: OutageWindow = {
        from: outageFrom,
        to: outageTo,
        boundMs: OUTAGE_BOUND_MS,
        refusal: (kind) => (kind === "grpc get" ? `grpc code ${grpc.status.UNAVAILABLE}` : "http 503 code 14"),
      };
      const during = startedDuring(running.samples, window);
      // Detection: the first refusal to end after the cut, whenever its request began.
      const firstRefusal = running.samples.filter((s) => s.start + s.ms >= cutAt && s.outcome !== "ok").map((s) => s.start + s.ms);
      const afterRecovery = running.samples.filter((s) => s.start > recoveredAt + 100);
      const outcomes: Record<string, number> = {};
      for (const s of during) outcomes[`${s.kind}: ${s.outcome}`] = (outcomes[`${s.kind}: ${s.outcome}`] ?? 0) + 1;
      const figures = {
        mode,
        healthyBefore: healthy,
        during: during.length,
        slowestMs: Math.max(...during.map((s) => s.ms)),
        detectionMs: Math.min(...firstRefusal) - cutAt,
        readyzMs: readyMs,
        recoveryMs: recoveredAt - restoreAt,
        afterRecovery: afterRecovery.length,
        outcomes,
      };
      printFigures("store outage", figures);

      expect(healthy).toBeGreaterThan(0);
      expect(during.length).toBeGreaterThan(WORKERS);
      expect(outageViolations(running.samples, window)).toEqual([]);
      expect({ readyWhileDown, health }).toEqual({ readyWhileDown: 503, health: 200 });
      expect(readyMs).toBeLessThan(OUTAGE_BOUND_MS);
      expect(recoveredAt, "/readyz never came back").toBeGreaterThan(0);
      expect(afterRecovery.length).toBeGreaterThan(0);
      expect(afterRecovery.filter((s) => s.outcome !== "ok")).toEqual([]);
    }, 60_000);
  }
});
