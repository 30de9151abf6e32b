/**
 * Moving the list change log's horizon (migration 0017) beside the store, so that every count
 * remembered before is taken again: what pruning does, without waiting for PostgreSQL's oldest
 * open transaction (anywhere on the server) to end, which a real prune must.
 */
import type { EngineContext } from "./engines.js";
import { execRaw, rawRows } from "./raw-sql.js";

/** Moves the horizon past every position given so far; returns a function that puts it back. */
export async function passHorizon(t: EngineContext): Promise<() => Promise<void>> {
  const [row] = await rawRows(t, "select below from list_change_horizon where id = 1");
  const before = String(row?.below);
  await execRaw(
    t,
    t.engine === "postgres"
      ? "update list_change_horizon set below = (pg_snapshot_xmax(pg_current_snapshot())::text::numeric + 1)::text::xid8 where id = 1"
      : "update list_change_horizon " +
          "set below = coalesce((select seq from sqlite_sequence where name = 'list_changes'), 0) + 2 where id = 1",
  );
  return () =>
    execRaw(
      t,
      t.engine === "postgres"
        ? `update list_change_horizon set below = '${before}'::xid8 where id = 1`
        : `update list_change_horizon set below = ${before} where id = 1`,
    );
}
