/**
 * What a copy of the database reveals: a raw read of it (the SQLite files byte for byte, every
 * PostgreSQL row) finds no private signing key, no registry key, no notifications or http
 * secret and no page-token secret in clear; an older Arbor's clear values are sealed at start;
 * and the database opened with another secrets key (or without its key file) does not start
 * and writes nothing (no new key, nothing sealed under the wrong key).
 */
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REGISTRY_SETTINGS, registryHttpSecret, registryNotificationsSecret, registrySigningKey } from "../../src/auth/registry-keys.js";
import { systemClock } from "../../src/domain/clock.js";
import { engines, type EngineContext, type TestLocation } from "../support/engines.js";
import { execRaw, rawRows } from "../support/raw-sql.js";
import { startTestServer, type TestServer, storeAt } from "../support/server.js";

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`secrets at rest [${engine.name}]`, () => {
    let t: TestServer | undefined;
    let location: TestLocation;
    const raw = () => ({ engine: engine.name, options: () => location.options }) as EngineContext;
    const start = (extra: Record<string, unknown> = {}) => {
      const o = location.options;
      return startTestServer(engine, { ...storeAt(o), ...extra });
    };
    /** Everything the database holds, as text: the files for SQLite, every row of the secret tables for PostgreSQL. */
    const dump = async () => {
      const all = [...(await rawRows(raw(), "select * from signing_keys")), ...(await rawRows(raw(), "select * from settings"))];
      const rows = all.flatMap((r) => Object.values(r)).join("\n");
      if (engine.name === "postgres") return rows;
      const files = await Promise.all(
        ["arbor.db", "arbor.db-wal"].map((f) => readFile(join(location.options.dataDir, f)).catch(() => Buffer.alloc(0))),
      );
      return rows + files.map((b) => b.toString("latin1")).join("");
    };
    const secretValues = async () =>
      [
        ...(await rawRows(raw(), "select private_jwk as v from signing_keys")),
        ...(await rawRows(raw(), "select value as v from settings")),
      ].map((r) => r.v as string);
    const signingRows = async () =>
      (await rawRows(raw(), "select kid, private_jwk from signing_keys order by kid")) as { kid: string; private_jwk: string }[];

    beforeAll(async () => {
      location = await engine.location();
      t = await start();
    });
    afterAll(async () => {
      await t?.close();
      await location?.dispose();
    });

    it("a raw read of the database finds no key or secret in clear", async () => {
      const server = t as TestServer;
      await server.organization("sealed");
      await registrySigningKey(server.server.store.settings, systemClock);
      const needles = {
        "the private signing JWK's d": (
          JSON.parse((await server.server.store.keys.live(Date.now()))[0]?.privateJwk ?? "{}") as { d: string }
        ).d,
        "the registry key's PEM": (
          JSON.parse(await server.server.store.settings.getOrCreate(REGISTRY_SETTINGS.signingKey, () => "")) as { privateKeyPem: string }
        ).privateKeyPem.split("\n")[1],
        "the notifications secret": await registryNotificationsSecret(server.server.store.settings),
        "Distribution's http secret": await registryHttpSecret(server.server.store.settings),
        "the page-token secret": await server.server.store.settings.getOrCreate("page_token_secret", () => ""),
      };
      const text = await dump();
      for (const [what, needle] of Object.entries(needles)) {
        expect(needle, what).toMatch(/.{20,}/);
        expect(text.includes(needle as string), `${what} is in clear in the database`).toBe(false);
      }
      expect(text).not.toContain("PRIVATE KEY");
      expect(text).not.toContain('"d":');
      for (const value of await secretValues()) expect(value).toMatch(/^enc:v1:/);
    });

    it("seals at start what an older Arbor left in clear, and still signs with its key", async () => {
      const server = t as TestServer;
      const key = (await server.server.store.keys.live(Date.now()))[0];
      const pageSecret = await server.server.store.settings.getOrCreate("page_token_secret", () => "");
      await server.close();
      t = undefined;
      await execRaw(raw(), `update signing_keys set private_jwk = '${key?.privateJwk ?? ""}' where kid = '${key?.kid ?? ""}'`);
      await execRaw(raw(), `update settings set value = '${pageSecret}' where name = 'page_token_secret'`);
      expect(await dump()).toContain('"d":');

      t = await start();
      expect(t.logs).toContainEqual(
        expect.objectContaining({ msg: "sealed stored secrets under the current secrets key", signingKeys: 1, settings: 1 }),
      );
      for (const value of await secretValues()) expect(value).toMatch(/^enc:v1:/);
      const { token } = await t.organization("legacy");
      expect(decodeProtectedHeader(token).kid).toBe(key?.kid);
      expect((await t.fetch("/iam/v2beta1/groups?uidp.in_root=true", { token })).status).toBe(200);
    });

    it("refuses to start with another secrets key, or without the key file, and writes nothing", async () => {
      const key = (await (t as TestServer).server.store.keys.live(Date.now()))[0];
      await t?.close();
      t = undefined;
      // One value left in clear beside sealed ones: a wrong key must not seal it under itself.
      await execRaw(raw(), `update signing_keys set private_jwk = '${key?.privateJwk ?? ""}' where kid = '${key?.kid ?? ""}'`);
      const before = await signingRows();
      await expect(start({ secretsKey: Buffer.alloc(32, 3).toString("base64") })).rejects.toThrow(
        /^the store's secrets are sealed with a secrets key that ARBOR_SECRETS_KEY does not hold: no configured secrets key opens this value/,
      );
      // A copy of the database alone: its data directory without secrets.key.
      const copy = await mkdtemp(join(tmpdir(), "arbor-copy-"));
      try {
        if (engine.name === "sqlite") await copyFile(join(location.options.dataDir, "arbor.db"), join(copy, "arbor.db"));
        await expect(start({ dataDir: copy })).rejects.toThrow(
          `the store's secrets are sealed with a secrets key that the key file ${join(copy, "secrets.key")} ` +
            "(ARBOR_SECRETS_KEY is unset) does not hold",
        );
      } finally {
        await rm(copy, { recursive: true, force: true });
      }
      expect(await signingRows()).toEqual(before);
      // The right key still opens everything.
      t = await start();
      expect(decodeProtectedHeader((await t.organization("still")).token).kid).toBe(key?.kid);
    });
  });
}
