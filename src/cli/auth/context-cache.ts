/**
 * Each context's logins live in a folder of their own, `<cache>/arbor/contexts/<context>/`, so a
 * token of one context is never sent by a command run in another, even to the same API URL.
 * Before contexts, logins lived in `<cache>/arbor/<API URL>/`; the first command that uses the
 * `default` context moves them into its folder, so nobody has to log in again.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

/** The folder of context's logins, below root (`<cache>/arbor`). */
export function contextCacheDir(root: string, context: string): string {
  return join(root, "contexts", context);
}

/** Moves the logins of the time before contexts into the default context's folder, once. */
export function adoptFirstFormatLogins(root: string, defaultDir: string): void {
  if (existsSync(defaultDir)) return;
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  // token-cache.ts names a login's folder by its percent-encoded API URL.
  const logins = names.filter((n) => /^https?%3A/i.test(n));
  if (logins.length === 0) return;
  mkdirSync(defaultDir, { recursive: true, mode: 0o700 });
  for (const name of logins) {
    try {
      renameSync(join(root, name), join(defaultDir, name));
    } catch (e) {
      // Another arbor process moved it first.
      if (!["ENOENT", "ENOTEMPTY", "EEXIST"].includes((e as NodeJS.ErrnoException).code ?? "")) throw e;
    }
  }
}

/** Forgets context's logins (the context is deleted). */
export function removeContextCache(root: string, context: string): void {
  rmSync(contextCacheDir(root, context), { recursive: true, force: true });
}

/** Moves context's logins along with its new name. */
export function renameContextCache(root: string, from: string, to: string): void {
  rmSync(contextCacheDir(root, to), { recursive: true, force: true });
  try {
    renameSync(contextCacheDir(root, from), contextCacheDir(root, to));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}
