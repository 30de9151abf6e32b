// V8's compiled code of the commands, kept between runs (node:module's compile cache): without it,
// each run compiles the bundle again, which is most of `arbor --version`'s time. It lives in the
// user's cache folder, beside the token cache (not in it, which holds only tokens):
// $XDG_CACHE_HOME/arbor-compile-cache, else ~/.cache/arbor-compile-cache, made 0700 (Node's
// default, a shared folder under /tmp, would let another local user plant code cache that this
// user's commands load). NODE_COMPILE_CACHE names another folder and NODE_DISABLE_COMPILE_CACHE=1
// turns it off, as for any Node program. A cache is only a speed-up: where it cannot be made or
// written (a read-only home), the command runs without it and says nothing.
import { mkdirSync } from "node:fs";
import module from "node:module";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

export function enableCompileCache() {
  if (typeof module.enableCompileCache !== "function") return;
  try {
    const env = process.env;
    let dir;
    if (!env.NODE_COMPILE_CACHE) {
      // XDG Base Directory: a relative XDG_CACHE_HOME is invalid and ignored (as for the token cache).
      const xdg = env.XDG_CACHE_HOME?.trim();
      const root = xdg && isAbsolute(xdg) ? xdg : join(env.HOME?.trim() || homedir(), ".cache");
      // Folder by folder: mkdirSync's recursive mode spins forever under some paths (/proc/...).
      for (dir of [root, join(root, "arbor-compile-cache")]) made(dir);
    }
    module.enableCompileCache(dir);
  } catch {
    // Run uncached.
  }
}

/** Makes dir (0700) unless it exists; throws when it cannot. */
function made(dir) {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if (e?.code !== "EEXIST") throw e;
  }
}
