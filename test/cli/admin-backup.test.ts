/**
 * `arbor admin backup` while a server takes writes, and `arbor admin restore` into a fresh data
 * directory: a server started there has every write acknowledged before the backup began, and
 * the restored key opens the restored signing keys (a token of the old server still works).
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runArbor, serveArbor, type ServeProcess } from "../support/process.js";

/** Both servers answer as this, so a token of the first is one the second accepts. */
const BASE_URL = "http://arbor.test";

interface Ack {
  name: string;
  uid: string;
  /** When the response arrived. */
  at: number;
}

describe("arbor admin backup and restore under write load", () => {
  let root: string;
  let dataDir: string;
  let server: ServeProcess | undefined;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "arbor-backup-"));
    dataDir = join(root, "data");
  });
  afterAll(async () => {
    server?.child.kill("SIGKILL");
    await rm(root, { recursive: true, force: true });
  });

  it("restores every write acknowledged before the backup began, with a key that opens its secrets", async () => {
    const env = { ARBOR_DATA_DIR: dataDir, ARBOR_BASE_URL: BASE_URL };
    const org = JSON.parse((await runArbor(["admin", "bootstrap", "--org", "acme"], env)).stdout) as { uid: string };
    const token = (await runArbor(["admin", "token", "--org", "acme"], env)).stdout.trim();
    server = await serveArbor([], env);
    const url = `http://127.0.0.1:${server.port}`;

    const acks: Ack[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const name = `w${w}-${n}`;
        const res = await fetch(`${url}/iam/v2beta1/groups/${org.uid}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ name }),
        });
        const body = (await res.json()) as { uid?: string };
        expect(res.status, JSON.stringify(body)).toBe(200);
        acks.push({ name, uid: body.uid as string, at: performance.now() });
      }
    };
    const writers = Promise.all([0, 1, 2, 3].map(writer));
    await sleep(1_500);
    const backupDir = join(root, "backup");
    const began = performance.now();
    const backup = await runArbor(["admin", "backup", backupDir], env);
    const ended = performance.now();
    const writesDuringBackup = acks.filter((a) => a.at >= began && a.at <= ended).length;
    await sleep(300);
    stop = true;
    await writers;
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stderr).toContain("the backup holds the secrets key");
    expect((await readdir(backupDir)).sort()).toEqual(["arbor.db", "secrets.key"]);
    for (const [path, mode] of [
      [backupDir, 0o700],
      [join(backupDir, "arbor.db"), 0o600],
      [join(backupDir, "secrets.key"), 0o600],
    ] as const) {
      expect((await stat(path)).mode & 0o777, path).toBe(mode);
    }
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    server = undefined;

    const restored = join(root, "restored");
    const restoreEnv = { ARBOR_DATA_DIR: restored, ARBOR_BASE_URL: BASE_URL };
    const restore = await runArbor(["admin", "restore", backupDir], restoreEnv);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toContain("integrity ok, the secrets key opens every sealed secret");

    server = await serveArbor([], restoreEnv);
    const url2 = `http://127.0.0.1:${server.port}`;
    const before = acks.filter((a) => a.at < began);
    const present = new Set<string>();
    for (const ack of acks) {
      // The old server's token: the restored store's signing keys, opened by the restored key.
      const res = await fetch(`${url2}/iam/v2beta1/groups/${ack.uid}`, { headers: { authorization: `Bearer ${token}` } });
      expect([200, 404], `${ack.name}: ${res.status}`).toContain(res.status);
      if (res.status === 200) {
        expect(((await res.json()) as { name: string }).name).toBe(ack.name);
        present.add(ack.name);
      } else {
        await res.body?.cancel();
      }
    }
    const missing = before.filter((a) => !present.has(a.name)).map((a) => a.name);
    expect(missing, `of ${before.length} writes acknowledged before the backup began`).toEqual([]);
    // A consistent snapshot: each writer's groups in it are a prefix of what that writer wrote.
    for (const w of [0, 1, 2, 3]) {
      const mine = acks.filter((a) => a.name.startsWith(`w${w}-`)).map((a) => present.has(a.name));
      expect(mine.indexOf(false) === -1 || mine.slice(mine.indexOf(false)).every((p) => !p), `writer ${w}`).toBe(true);
    }
    console.warn(
      `backup: ${before.length} writes before it, ${writesDuringBackup} acknowledged during its ${Math.round(ended - began)} ms, ` +
        `${acks.length} in all; ${present.size} restored`,
    );
    expect(before.length).toBeGreaterThan(50);
    expect(writesDuringBackup).toBeGreaterThan(0);

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    server = undefined;
    const again = await runArbor(["admin", "restore", backupDir], restoreEnv);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("is not empty");
  });

  it("restores nothing with a key that does not open the store; --force replaces a store; PostgreSQL is pg_dump's", async () => {
    const source = join(root, "source");
    const env = { ARBOR_DATA_DIR: source };
    expect((await runArbor(["admin", "bootstrap", "--org", "first"], env)).code).toBe(0);
    const keyless = join(root, "keyless");
    const backup = await runArbor(["admin", "backup", "--without-key", keyless], env);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stderr).toContain("the backup holds no secrets key");
    expect(await readdir(keyless)).toEqual(["arbor.db"]);
    expect((await runArbor(["admin", "backup", keyless], env)).stderr).toContain("is not empty");

    const target = join(root, "target");
    const noKey = await runArbor(["admin", "restore", keyless], { ARBOR_DATA_DIR: target });
    expect([noKey.code, noKey.stderr]).toEqual([2, expect.stringContaining("holds no secrets.key and ARBOR_SECRETS_KEY is unset")]);
    const wrongKey = await runArbor(["admin", "restore", keyless], {
      ARBOR_DATA_DIR: target,
      ARBOR_SECRETS_KEY: Buffer.alloc(32, 9).toString("base64"),
    });
    expect([wrongKey.code, wrongKey.stderr]).toEqual([2, expect.stringContaining("does not hold")]);
    expect(await readdir(target)).toEqual([]);

    // A data directory with a store of its own, replaced with --force, WAL and all.
    expect((await runArbor(["admin", "bootstrap", "--org", "second"], { ARBOR_DATA_DIR: target })).code).toBe(0);
    const full = join(root, "full");
    expect((await runArbor(["admin", "backup", full], env)).code).toBe(0);
    expect((await runArbor(["admin", "restore", full], { ARBOR_DATA_DIR: target })).code).toBe(2);
    const forced = await runArbor(["admin", "restore", "--force", full], { ARBOR_DATA_DIR: target });
    expect(forced.code, forced.stderr).toBe(0);
    const orgs = await runArbor(["admin", "bootstrap", "--org", "first"], { ARBOR_DATA_DIR: target });
    const again = await runArbor(["admin", "bootstrap", "--org", "first"], env);
    expect(JSON.parse(orgs.stdout)).toEqual(JSON.parse(again.stdout));

    const pgBackup = await runArbor(["admin", "backup", join(root, "pg")], { ARBOR_DATABASE_URL: "postgres://arbor@127.0.0.1:1/arbor" });
    expect([pgBackup.code, pgBackup.stderr]).toEqual([2, expect.stringContaining("back it up with pg_dump")]);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
