/**
 * The CLI's token cache: `<cache>/arbor/<API URL>/session.json` (how to get new tokens: a
 * refresh token, or the identity and the file holding its upstream token) and
 * `<cache>/arbor/<API URL>/tokens/<audience>.json` (the last API token per audience). Folders
 * are 0700 and files 0600, written whole (temporary file, then rename). A lock file serializes
 * refreshes: a refresh token works once, and two processes refreshing with it at the same time
 * would look like a replay and end the login.
 */
import { chmod, mkdir, open, readFile, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** How to get new tokens for one API. */
export type Session =
  | { kind: "person"; api: string; issuer: string; identity: string; refreshToken: string }
  | { kind: "workload"; api: string; issuer: string; identity: string; identityTokenFile: string };

export interface CachedToken {
  token: string;
  /** RFC 3339. */
  expiry: string;
}

/** How long a lock is waited for, and after how long an abandoned one is broken. */
const LOCK_WAIT_MS = 15_000;
const LOCK_STALE_MS = 60_000;

/** The cache of one API. */
export class TokenCache {
  readonly #root: string;
  readonly #dir: string;

  constructor(cacheDir: string, api: string) {
    this.#root = cacheDir;
    this.#dir = join(cacheDir, fileName(api));
  }

  /** The session, or undefined when not logged in. */
  readSession(): Promise<Session | undefined> {
    return this.#read<Session>(join(this.#dir, "session.json"));
  }

  /** Replaces the session. */
  async writeSession(session: Session): Promise<void> {
    await this.#write(join(this.#dir, "session.json"), session);
  }

  /** The cached token for audience, or undefined. */
  readToken(audience: string): Promise<CachedToken | undefined> {
    return this.#read<CachedToken>(join(this.#dir, "tokens", `${fileName(audience)}.json`));
  }

  /** Caches a token for audience. */
  async writeToken(audience: string, token: CachedToken): Promise<void> {
    await this.#write(join(this.#dir, "tokens", `${fileName(audience)}.json`), token);
  }

  /** Forgets everything about this API. */
  async clear(): Promise<void> {
    await rm(this.#dir, { recursive: true, force: true });
  }

  /** Runs fn holding this API's lock, so that one process at a time refreshes. */
  async withLock<T>(fn: () => Promise<T>): Promise<T> {
    await this.#ensureDir(this.#dir);
    const lock = join(this.#dir, "lock");
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        await (await open(lock, "wx", 0o600)).close();
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
        const age = Date.now() - ((await stat(lock).catch(() => undefined))?.mtimeMs ?? Date.now());
        if (age > LOCK_STALE_MS) await unlink(lock).catch(() => undefined);
        else if (Date.now() > deadline) throw new Error(`another arbor command holds ${lock}; if none runs, delete it`);
        else await new Promise((r) => setTimeout(r, 50));
      }
    }
    try {
      return await fn();
    } finally {
      await unlink(lock).catch(() => undefined);
    }
  }

  async #read<T>(path: string): Promise<T | undefined> {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      // A damaged cache file is as good as none.
      return undefined;
    }
  }

  async #write(path: string, value: unknown): Promise<void> {
    const dir = join(path, "..");
    await this.#ensureDir(dir);
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, path);
  }

  /** Makes dir and every folder between the cache root and it, each 0700. */
  async #ensureDir(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    for (let d = dir; d.startsWith(this.#root); d = join(d, "..")) {
      await chmod(d, 0o700);
      if (d === this.#root) break;
    }
  }
}

/** A URL or audience as one file name: percent-encoded (a leading dot too), so distinct values never collide. */
function fileName(value: string): string {
  return encodeURIComponent(value).replace(/^\./, "%2E");
}
