/**
 * The typed client (src/client) from Node against a real server, over each transport: Connect and
 * gRPC-Web through fetch (the browser entry), gRPC over HTTP/2 (the Node entry).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ARBOR_SERVICES,
  BadRequestSchema,
  Code,
  ConnectError,
  createArborNodeClient,
  ErrorInfoSchema,
  ResourceInfoSchema,
  type ArborNodeClient,
} from "../../src/client/node.js";
import { createServices } from "../../src/services/routes.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0]!;
const TRANSPORTS = ["connect", "grpc-web", "grpc"] as const;

/** The type names of the services in the client's tree. */
function typeNamesOf(tree: object): string[] {
  return Object.values(tree).flatMap((node: any) => (node.kind === "service" ? [node.typeName as string] : typeNamesOf(node)));
}

describe(`the TypeScript client from Node [${engine.name}]`, () => {
  let t: TestServer;
  let org: string;
  let token: string;
  const clients: ArborNodeClient[] = [];
  const clientFor = (transport: (typeof TRANSPORTS)[number], tokenSource: string | (() => Promise<string>) = token) => {
    const client = createArborNodeClient({ baseUrl: t.url, token: tokenSource, transport });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    t = await startTestServer(engine);
    const o = await t.organization("client-org");
    org = o.org.uid;
    token = o.token;
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await t?.close();
  });

  it("offers exactly the services the server registers", () => {
    const served = createServices(t.server.deps).map((b) => b.service.typeName);
    expect(typeNamesOf(ARBOR_SERVICES).sort()).toEqual([...served].sort());
  });

  it.each(TRANSPORTS)("%s: creates, lists, gets, updates and deletes a group", async (transport) => {
    // A token function is asked before every call (where a refresh would go).
    let asked = 0;
    const client = clientFor(transport, async () => {
      asked++;
      return token;
    });
    const groups = client.iam.v2beta1.groups;
    const created = await groups.createGroup({ parent: org, group: { name: `g-${transport}`, description: "made by the client" } });
    expect(created.uid).toMatch(new RegExp(`^${org}/[0-9a-f]{16}$`));
    const list = await groups.listGroups({ uidp: { childrenOf: org }, name: `g-${transport}` });
    expect(list.groups.map((g) => g.uid)).toEqual([created.uid]);
    expect(list.totalCount).toBe(1n);
    expect((await groups.getGroup({ uid: created.uid })).description).toBe("made by the client");
    const updated = await groups.updateGroup({
      group: { uid: created.uid, description: "changed" },
      updateMask: { paths: ["description"] },
    });
    expect(updated).toMatchObject({ name: `g-${transport}`, description: "changed" });
    await groups.deleteGroup({ uid: created.uid });
    await expect(groups.getGroup({ uid: created.uid })).rejects.toMatchObject({ code: Code.NotFound });
    expect(asked).toBe(6);
  });

  it.each(TRANSPORTS)("%s: errors are ConnectErrors with code and google.rpc details", async (transport) => {
    const groups = clientFor(transport).iam.v2beta1.groups;
    const invalid = await groups.createGroup({ parent: org, group: { name: "Not Valid!" } }).catch((e: unknown) => ConnectError.from(e));
    expect(invalid).toBeInstanceOf(ConnectError);
    expect((invalid as ConnectError).code).toBe(Code.InvalidArgument);
    expect((invalid as ConnectError).rawMessage).toBe('Invalid argument: name: name must match "^[a-z0-9 ._-]{1,}$"');
    expect((invalid as ConnectError).findDetails(ErrorInfoSchema)).toMatchObject([{ reason: "INVALID_ARGUMENT", domain: "iam.localhost" }]);
    expect((invalid as ConnectError).findDetails(BadRequestSchema)[0]?.fieldViolations[0]?.field).toBe("name");
    const missing = await groups.getGroup({ uid: `${org}/0123456789abcdef` }).catch((e: unknown) => ConnectError.from(e));
    expect((missing as ConnectError).code).toBe(Code.NotFound);
    expect((missing as ConnectError).findDetails(ResourceInfoSchema)[0]).toMatchObject({ resourceName: `${org}/0123456789abcdef` });
  });

  it.each(TRANSPORTS)("%s: without a token, public RPCs answer and the others are UNAUTHENTICATED", async (transport) => {
    const client = createArborNodeClient({ baseUrl: `${t.url}/`, transport });
    clients.push(client);
    expect((await client.ping.v2beta1.ping.ping({})).response).not.toBe("");
    await expect(client.iam.v2beta1.groups.listGroups({})).rejects.toMatchObject({ code: Code.Unauthenticated });
  });
});
