/**
 * A change committed through another connection to the same store (as `arbor admin` makes
 * through its own, or another replica on PostgreSQL) decides the very next request: the server
 * remembers a caller's permissions by the authorization generation (src/auth/authorizer.ts) and
 * must read that generation anew for each request, whoever moved it. A guard for any change to
 * how a request's store reads are made (bench/findings.md, S1, "The read transactions").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { createStore } from "../../src/store/create-store.js";
import type { Store } from "../../src/store/store.js";
import { engines, type TestLocation } from "../support/engines.js";
import { binding } from "../support/records.js";
import { startTestServer, storeAt, type TestServer } from "../support/server.js";

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`a change made through another connection [${engine.name}]`, () => {
    let location: TestLocation;
    let t: TestServer;
    let other: Store;

    beforeAll(async () => {
      location = await engine.location();
      t = await startTestServer(engine, storeAt(location.options));
      other = await createStore(location.options);
    });
    afterAll(async () => {
      await other?.close();
      await t?.close();
      await location?.dispose();
    });

    it("grants and revokes on the caller's very next request, after requests that remembered the caller's permissions", async () => {
      const { org } = await t.organization("elsewhere");
      const stranger = await t.strangerToken();
      const read = async () => (await t.fetch(`/iam/v2beta1/groups/${org.uid}`, { token: stranger })).status;
      for (let i = 0; i < 3; i++) expect(await read()).toBe(403);
      const strangerUid = JSON.parse(Buffer.from(stranger.split(".")[1] ?? "", "base64url").toString("utf8")).sub as string;
      const bound = binding(`${org.uid}/${"b".repeat(16)}`, strangerUid, builtinRoleUid("viewer"));
      await other.bindings.insert(bound);
      expect(await read()).toBe(200);
      expect(await read()).toBe(200);
      expect(await other.bindings.delete(bound.uid)).toBe(true);
      expect(await read()).toBe(403);
    });
  });
}
