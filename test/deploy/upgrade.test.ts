/**
 * A rolling upgrade on one PostgreSQL database (docs/operations.md, "Upgrades"): the previous
 * release, built from git, serves a write load; this release runs `arbor admin migrate` on the
 * same database meanwhile; the old server keeps serving through it, a new server starts beside it
 * (with migrating off, so the migration must be done), both serve the same data, then the old one
 * stops and the new one still has everything.
 *
 * The previous release is the latest git tag, or, before the first tag, PREVIOUS_RELEASE.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { knownMigrations } from "../../src/store/migrate.js";
import { runArbor, serveArbor, type ServeProcess } from "../support/process.js";

/** Until a release is tagged: the last commit before migration 0016, so this release has one to run. */
const PREVIOUS_RELEASE = "0e496d38b30904cf33cac34141ba78228ef94098";

const ROOT = join(import.meta.dirname, "../..");
const ADMIN_URL = process.env.ARBOR_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const BASE_URL = "http://arbor.test";

const git = (...args: string[]) =>
  execFileSync("git", ["-C", ROOT, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

function previousRelease(): string {
  try {
    return git("describe", "--tags", "--abbrev=0");
  } catch {
    return PREVIOUS_RELEASE;
  }
}

async function canReach(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const reachable = await canReach(ADMIN_URL);
if (!reachable && process.env.CI === "true")
  throw new Error(`PostgreSQL is not reachable at ${ADMIN_URL}; CI needs it for the upgrade test`);

interface Ack {
  name: string;
  uid: string;
  by: "old" | "new";
}

describe.skipIf(!reachable)("a rolling upgrade from the previous release on PostgreSQL", () => {
  const release = previousRelease();
  const database = `arbor_upgrade_${randomBytes(6).toString("hex")}`;
  let work: string;
  let oldBin: string;
  let env: Record<string, string>;
  const servers: ServeProcess[] = [];

  beforeAll(async () => {
    // A shallow clone lacks the commit: say so rather than test nothing.
    git("cat-file", "-e", `${release}^{commit}`);
    work = await mkdtemp(join(tmpdir(), "arbor-previous-"));
    execFileSync("sh", ["-c", `git -C "${ROOT}" archive "${release}" | tar -x -C "${work}"`]);
    // Its dependencies are this checkout's (the lock file is unchanged since): linked, not installed.
    await symlink(await realpath(join(ROOT, "node_modules")), join(work, "node_modules"));
    execFileSync(process.execPath, [join(work, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
      cwd: work,
      stdio: "inherit",
    });
    oldBin = join(work, "bin/arbor.js");

    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${database}`);
    await admin.end();
    const url = new URL(ADMIN_URL);
    url.pathname = `/${database}`;
    env = {
      ARBOR_DATABASE_URL: url.toString(),
      // Replicas share the key that seals the signing keys in the database.
      ARBOR_SECRETS_KEY: randomBytes(32).toString("base64"),
      ARBOR_BASE_URL: BASE_URL,
      ARBOR_DATA_DIR: join(work, "data"),
    };
  });

  afterAll(async () => {
    for (const server of servers) server.child.kill("SIGKILL");
    await Promise.all(servers.map((s) => s.exited.catch(() => undefined)));
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  it("keeps serving the old release while the new one migrates, and both serve the same data", async () => {
    const old = await serveArbor([], env, oldBin);
    servers.push(old);
    const org = JSON.parse((await runArbor(["admin", "bootstrap", "--org", "acme"], env, oldBin)).stdout) as { uid: string };
    const token = (await runArbor(["admin", "token", "--org", "acme"], env, oldBin)).stdout.trim();
    const urlOf = (s: ServeProcess) => `http://127.0.0.1:${s.port}`;

    const check = await runArbor(["admin", "migrate", "--check"], env);
    const pending = knownMigrations().filter((name) => check.stdout.includes(name));
    expect(check.code, `${release} should be a schema behind: ${check.stdout}${check.stderr}`).toBe(3);

    const acks: Ack[] = [];
    const failures: string[] = [];
    let stop = false;
    const writer = async (w: number, target: () => ServeProcess | undefined, by: Ack["by"]) => {
      for (let n = 0; !stop; n++) {
        const server = target();
        if (server === undefined) {
          await sleep(20);
          continue;
        }
        const name = `${by}${w}-${n}`;
        const res = await fetch(`${urlOf(server)}/iam/v2beta1/groups/${org.uid}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ name }),
        });
        const body = (await res.json()) as { uid?: string };
        if (res.status === 200) acks.push({ name, uid: body.uid as string, by });
        else failures.push(`${by} ${name}: ${res.status} ${JSON.stringify(body)}`);
      }
    };
    // The new server, once it has started; its writer waits for it.
    const started: { next?: ServeProcess } = {};
    const writers = Promise.all([writer(0, () => old, "old"), writer(1, () => old, "old"), writer(2, () => started.next, "new")]);
    await sleep(1_000);
    const beforeMigrate = acks.length;

    const migrate = await runArbor(["admin", "migrate"], env);
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(migrate.stdout).toBe(`applied ${pending.length} migration(s):\n${pending.join("\n")}\n`);
    const afterMigrate = acks.filter((a) => a.by === "old").length;

    const next = await serveArbor(["--no-migrate"], env);
    started.next = next;
    servers.push(next);
    await sleep(1_500);
    stop = true;
    await writers;
    expect(failures).toEqual([]);
    const oldAfter = acks.filter((a) => a.by === "old").length - afterMigrate;
    const byNew = acks.filter((a) => a.by === "new").length;
    console.warn(
      `upgrade from ${release}: ${beforeMigrate} writes before the migration, ` +
        `${oldAfter} by the old server after it, ${byNew} by the new one`,
    );
    expect(beforeMigrate).toBeGreaterThan(20);
    expect(oldAfter).toBeGreaterThan(20);
    expect(byNew).toBeGreaterThan(20);

    // Every write, whichever server took it, reads the same from both.
    for (const server of [old, next]) {
      for (const ack of acks) {
        const res = await fetch(`${urlOf(server)}/iam/v2beta1/groups/${ack.uid}`, { headers: { authorization: `Bearer ${token}` } });
        expect(res.status, `${ack.name} from ${server === old ? "old" : "new"}`).toBe(200);
        expect(((await res.json()) as { name: string }).name).toBe(ack.name);
      }
    }

    old.child.kill("SIGTERM");
    expect(await old.exited).toBe(0);
    const names: string[] = [];
    let pageToken = "";
    do {
      const list = await fetch(
        `${urlOf(next)}/iam/v2beta1/groups?uidp.children_of=${org.uid}&page_size=200&page_token=${encodeURIComponent(pageToken)}`,
        {
          headers: { authorization: `Bearer ${token}` },
        },
      );
      expect(list.status).toBe(200);
      const page = (await list.json()) as { groups: { name: string }[]; nextPageToken?: string };
      names.push(...page.groups.map((g) => g.name));
      pageToken = page.nextPageToken ?? "";
    } while (pageToken !== "");
    expect(names.sort()).toEqual(acks.map((a) => a.name).sort());
    next.child.kill("SIGTERM");
    expect(await next.exited).toBe(0);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
