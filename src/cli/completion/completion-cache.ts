/**
 * What the server answered completion, kept a short while on disk (`<cache>/arbor/completion/`),
 * so pressing TAB again does not ask again. One file per server, identity and kind of name, named
 * by a digest of them: names one login sees are never offered to another. Folder 0700, files 0600,
 * written whole; an unreadable or damaged file is as good as none.
 */
import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** How long an answer is used. */
export const COMPLETION_TTL_MS = 30_000;

/** The most names a file holds (a server list page holds at most 200). */
const MAX_NAMES = 1000;

/** The answers of one user's completion. */
export class CompletionCache {
  readonly #dir: string;
  readonly #now: () => number;
  readonly #ttlMs: number;

  constructor(dir: string, now: () => number, ttlMs = COMPLETION_TTL_MS) {
    this.#dir = dir;
    this.#now = now;
    this.#ttlMs = ttlMs;
  }

  /** The file of (server, identity, kind). */
  pathOf(server: string, identity: string, kind: string): string {
    return join(this.#dir, `${createHash("sha256").update(`${server}\n${identity}\n${kind}`).digest("hex")}.json`);
  }

  /** The names saved for the key less than the TTL ago, else undefined. */
  async get(server: string, identity: string, kind: string): Promise<string[] | undefined> {
    try {
      const doc = JSON.parse(await readFile(this.pathOf(server, identity, kind), "utf8")) as { savedAt?: unknown; names?: unknown };
      const age = this.#now() - Number(doc.savedAt);
      if (!(age >= 0 && age < this.#ttlMs) || !Array.isArray(doc.names)) return undefined;
      return doc.names.filter((n): n is string => typeof n === "string").slice(0, MAX_NAMES);
    } catch {
      return undefined;
    }
  }

  /** Saves names for the key, now. */
  async put(server: string, identity: string, kind: string, names: readonly string[]): Promise<void> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    await chmod(this.#dir, 0o700);
    const path = this.pathOf(server, identity, kind);
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify({ savedAt: this.#now(), names: names.slice(0, MAX_NAMES) }), { mode: 0o600 });
    await rename(temporary, path);
  }
}
