/**
 * A real Arbor server for end-to-end tests: started on port 0 over a fresh store of the chosen
 * engine, with its log lines kept for assertions.
 */
import { Writable } from "node:stream";
import { pino } from "pino";
import type { Resolve } from "../../src/auth/issuer-fetch.js";
import { resolveConfig, type Config } from "../../src/config.js";
import type { Clock } from "../../src/domain/clock.js";
import type { StoreOptions } from "../../src/store/create-store.js";
import { adminIdentityUid, userIdentityUid } from "../../src/domain/identities.js";
import type { GroupRecord } from "../../src/domain/groups.js";
import { startServer, type ArborServer } from "../../src/server/server.js";
import { createOrganization } from "../../src/services/iam/groups-store-ops.js";
import type { TestEngine } from "./engines.js";
import { identity } from "./records.js";
import { assertNoSecrets } from "./secret-scan.js";

/** A started server and helpers around it. */
export interface TestServer {
  readonly server: ArborServer;
  readonly url: string;
  /** Every log line the server wrote, parsed. */
  readonly logs: Record<string, unknown>[];
  /** Creates an organization and returns it with a token of its administrator. */
  organization(name: string): Promise<{ org: GroupRecord; token: string }>;
  /** A valid token of someone with no role bindings at all (a registered person, as after a first login). */
  strangerToken(): Promise<string>;
  /** Registers uid as a person who logged in (a root-level identity row), unless it exists: tokens of unregistered uids are refused. */
  register(uid: string, name?: string): Promise<void>;
  /**
   * fetch against the server, with a bearer token when given. A string body is declared
   * application/json unless the headers say otherwise, as a JSON client sends it (fetch alone
   * would send text/plain, which REST refuses with 415).
   */
  fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  close(): Promise<void>;
}

/** The settings that put a server's store at a test location (to start one on data a test also reads). */
export function storeAt(o: StoreOptions): Pick<Config, "dataDir" | "databaseUrl" | "databaseSchema"> {
  return { dataDir: o.dataDir, databaseUrl: o.databaseUrl, databaseSchema: o.schema };
}

/**
 * Starts a server on the engine; extra settings override the defaults; env.clock replaces the
 * system clock, env.resolve the resolver of issuers' names.
 */
export async function startTestServer(
  engine: TestEngine,
  settings: Partial<Config> = {},
  env: { clock?: Clock; resolve?: Resolve } = {},
): Promise<TestServer> {
  const location = await engine.location();
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line.trim() !== "") logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config: Config = {
    ...resolveConfig({ env: {} }),
    port: 0,
    host: "127.0.0.1",
    dataDir: location.options.dataDir,
    databaseUrl: location.options.databaseUrl,
    databaseSchema: location.options.schema,
    shutdownTimeoutMs: 5_000,
    ...settings,
  };
  let server: ArborServer;
  try {
    server = await startServer(config, { logger: pino({ level: "info" }, sink), ...env });
  } catch (e) {
    await location.dispose();
    throw e;
  }
  const register = async (uid: string, name = `person-${uid.slice(0, 8)}`) => {
    if ((await server.store.identities.get(uid)) === undefined) await server.store.identities.insert(identity(uid, name));
  };
  return {
    server,
    url: server.url,
    logs,
    async organization(name) {
      const org = await createOrganization(server.deps, { name, description: "" }, adminIdentityUid);
      const { token } = await server.tokens.issue(adminIdentityUid(org.uid), server.url);
      return { org, token };
    },
    async strangerToken() {
      const uid = userIdentityUid("https://issuer.example", "stranger");
      await register(uid, "stranger");
      return (await server.tokens.issue(uid, server.url)).token;
    },
    register,
    fetch(path, init = {}) {
      const { token, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
      if (typeof rest.body === "string" && !headers.has("content-type")) headers.set("content-type", "application/json");
      return fetch(`${server.url}${path}`, { ...rest, headers });
    },
    async close() {
      await server.close();
      await location.dispose();
      assertNoSecrets(logs, "the server");
    },
  };
}
