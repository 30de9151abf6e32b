/**
 * The world a fuzz campaign runs against: a real server on a fresh store of one engine, with an
 * organization, child groups, an identity, a custom role and a role binding, so hostile requests
 * can name things that exist; plus real page tokens to mangle.
 */
import { Writable } from "node:stream";
import { pino } from "pino";
import { resolveConfig } from "../../../src/config.js";
import { adminIdentityUid, userIdentityUid } from "../../../src/domain/identities.js";
import { builtinRoleUid } from "../../../src/domain/roles.js";
import { startServer, type ArborServer } from "../../../src/server/server.js";
import { createOrganization } from "../../../src/services/iam/groups-store-ops.js";
import type { StoreOptions } from "../../../src/store/create-store.js";
import type { TestEngine } from "../engines.js";
import { identity as identityRecord } from "../records.js";
import type { KnownUids } from "./hostile-values.js";
import type { CaseContext } from "./rest-cases.js";

/** A started world. */
export interface FuzzWorld {
  server: ArborServer;
  /** Log lines at warn level and above (an access-log line of every request would swamp memory). */
  warnings: Record<string, unknown>[];
  /** Where its store is, to snapshot. */
  store: StoreOptions;
  context: CaseContext;
  close(): Promise<void>;
}

/** Starts a server on engine and fills it. */
export async function startFuzzWorld(engine: TestEngine): Promise<FuzzWorld> {
  const location = await engine.location();
  const o = location.options;
  const warnings: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString("utf8").split("\n"))
        if (line.trim() !== "") warnings.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = {
    ...resolveConfig({ env: {} }),
    port: 0,
    host: "127.0.0.1",
    dataDir: o.dataDir,
    databaseUrl: o.databaseUrl,
    databaseSchema: o.schema,
  };
  let server: ArborServer;
  try {
    server = await startServer(config, { logger: pino({ level: "warn" }, sink) });
  } catch (e) {
    await location.dispose();
    throw e;
  }
  try {
    const org = await createOrganization(server.deps, { name: "fuzz", description: "" }, adminIdentityUid);
    const { token } = await server.tokens.issue(adminIdentityUid(org.uid), server.url);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const json = (await res.json()) as Record<string, any>;
      if (res.status !== 200) throw new Error(`setting up the fuzz world: ${JSON.stringify(json)}`);
      return json;
    };
    const groups = [];
    for (const name of ["alpha", "bravo", "charlie"]) groups.push(await call("POST", `/iam/v2beta1/groups/${org.uid}`, { name }));
    const group = groups[0]?.uid as string;
    const identity = await call("POST", `/iam/v2beta1/identities/${group}`, {
      name: "ci",
      claimMatch: { issuer: "https://issuer.example", subject: "ci" },
    });
    const role = await call("POST", `/iam/v2beta1/roles/${group}`, { name: "puller", capabilities: ["CAP_IAM_GROUPS_LIST"] });
    const binding = await call("POST", `/iam/v2beta1/roleBindings/${group}`, {
      identityUid: identity.uid,
      roleUid: builtinRoleUid("viewer"),
    });
    const page = await call("GET", "/iam/v2beta1/groups?page_size=1");
    const known: KnownUids = {
      org: org.uid,
      group,
      identity: identity.uid,
      binding: binding.uid,
      role: role.uid,
      builtinRole: builtinRoleUid("viewer"),
    };
    // A registered person bound nowhere: tokens of unregistered uids are refused outright.
    const strangerUid = userIdentityUid("https://issuer.example", "stranger");
    await server.store.identities.insert(identityRecord(strangerUid, "stranger"));
    const stranger = (await server.tokens.issue(strangerUid, server.url)).token;
    return {
      server,
      warnings,
      store: o,
      context: { known, ownerToken: token, strangerToken: stranger, pageTokens: [page.nextPageToken as string] },
      async close() {
        await server.close();
        await location.dispose();
      },
    };
  } catch (e) {
    await server.close();
    await location.dispose();
    throw e;
  }
}
