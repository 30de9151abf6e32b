/**
 * Registry path bindings in `registry_paths` (migration 0011): each group path that ever held
 * registry content, bound to the group that held it. Rows are only ever added; the path's and the
 * group's unique constraints decide between concurrent claims on every engine.
 */
import { failedPrecondition } from "../domain/errors.js";
import type { Executor } from "./tables.js";
import { runPrepared } from "./compiled-query.js";
import { guard } from "./translate-error.js";

/** A group path (`acme/backend-team`) and the group it is bound to, which may be gone. */
export interface RegistryPath {
  path: string;
  groupUid: string;
}

export interface RegistryPathStore {
  /** The bindings of any of these paths or any of these groups. */
  lookup(query: { paths?: readonly string[]; groups?: readonly string[] }): Promise<RegistryPath[]>;
  /**
   * Binds each path to its group unless it already is. FAILED_PRECONDITION
   * (REGISTRY_PATH_RESERVED) when a path is bound to another group or a group to another path,
   * however concurrent the claims; what was bound before the clash stays bound.
   */
  bind(paths: readonly RegistryPath[]): Promise<void>;
}

/** The registry path store over an executor. */
export function createRegistryPathStore(db: Executor): RegistryPathStore {
  async function lookup({ paths = [], groups = [] }: { paths?: readonly string[]; groups?: readonly string[] }): Promise<RegistryPath[]> {
    if (paths.length === 0 && groups.length === 0) return [];
    const query = db
      .selectFrom("registry_paths")
      .select(["path", "group_uid"])
      .where((eb) =>
        eb.or([
          ...(paths.length > 0 ? [eb("path", "in", [...paths])] : []),
          ...(groups.length > 0 ? [eb("group_uid", "in", [...groups])] : []),
        ]),
      );
    // By key (both columns are unique): prepared on PostgreSQL for the few-keyed lookups of a create or rename.
    const rows = await guard(() => (paths.length + groups.length <= 2 ? runPrepared(db, query) : query.execute()));
    return rows.map((r) => ({ path: r.path, groupUid: r.group_uid }));
  }

  return {
    lookup,

    async bind(paths) {
      for (const want of paths) {
        // DO NOTHING on either constraint; on PostgreSQL it waits for a concurrent claim of the
        // same path or group to commit, so the read that follows sees whoever won.
        await guard(() =>
          db
            .insertInto("registry_paths")
            .values({ path: want.path, group_uid: want.groupUid })
            .onConflict((oc) => oc.doNothing())
            .execute(),
        );
        const held = await lookup({ paths: [want.path], groups: [want.groupUid] });
        if (held.some((h) => h.path !== want.path || h.groupUid !== want.groupUid)) throw reserved(want.path);
      }
    },
  };
}

/** The refusal of a path bound elsewhere; it names the path only, never the group holding it. */
export function reserved(path: string) {
  return failedPrecondition("REGISTRY_PATH_RESERVED", path, `registry path ${path} is reserved by another group`);
}
