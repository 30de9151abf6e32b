/**
 * 0023: an outbox row that costs a create less (issue 21, E1 in docs/benchmarks.md). On SQLite
 * every create with events on wrote, besides the row's own table page, a page of each of its two
 * indexes and of `sqlite_sequence` (AUTOINCREMENT): three more WAL frames per commit, where the
 * row's JSON body, however long, added none (a count of WAL frames per transaction over an
 * audit-like row and the outbox's, bench/findings.md).
 *
 * - On SQLite, `event_outbox_xid_position_idx` goes: xid is always 0 there, so the delivery order
 *   is the rowid's, which the table itself is kept in. The time index stays (pruning and replay
 *   from a time: positions do not follow times exactly, a registry event bearing the time the
 *   registry saw the push).
 * - On SQLite, positions no longer come from AUTOINCREMENT but from the store's insert: one more
 *   than the greater of the outbox's last position and `event_outbox_floor`, which pruning raises
 *   to the last position before it deletes anything. So a position is never given twice, even
 *   once pruning empties the outbox, and a create writes nothing but its row. AUTOINCREMENT
 *   cannot be dropped in place: the table is made again, its rows copied with their positions,
 *   and the floor starts at what `sqlite_sequence` said (above the last row when pruning had
 *   deleted the newest ones), so cursors already stored keep their meaning.
 *
 * PostgreSQL is left as it is: its identity column is a sequence, which gives no number twice
 * and writes no page of the table's per insert, and delivery reads its (xid, position) index.
 * An older release run on a migrated SQLite store (one server per store) would insert without the
 * floor: once its pruning emptied the outbox, it could give a position again.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** On SQLite, remakes the outbox without AUTOINCREMENT or the (xid, position) index, beside its floor; nothing on PostgreSQL. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  if (engine === "postgres") return;

  await sql`
    create table event_outbox_floor (
      id integer primary key check (id = 1),
      position integer not null
    )`.execute(db);
  await sql`
    insert into event_outbox_floor (id, position)
    values (1, coalesce((select seq from sqlite_sequence where name = 'event_outbox'), 0))`.execute(db);

  // rolling-unsafe: SQLite only, where one process serves a store (no older server runs beside
  // the migration); AUTOINCREMENT cannot be dropped in place, so the table is made again, in the
  // migration's one transaction, under the same name and columns
  await sql`alter table event_outbox rename to event_outbox_0021`.execute(db);
  await sql`
    create table event_outbox (
      position integer primary key,
      xid integer not null default 0,
      id text not null,
      type text not null,
      subject text not null,
      group_uid text not null,
      time bigint not null,
      read_caps text not null,
      data text not null
    )`.execute(db);
  await sql`
    insert into event_outbox (position, xid, id, type, subject, group_uid, time, read_caps, data)
    select position, xid, id, type, subject, group_uid, time, read_caps, data from event_outbox_0021`.execute(db);
  // Its indexes and its sqlite_sequence row go with it.
  // rolling-unsafe: the same rebuild: the old table, its rows copied, goes with its indexes
  await sql`drop table event_outbox_0021`.execute(db);
  await db.schema.createIndex("event_outbox_time_idx").on("event_outbox").columns(["time"]).execute();
}
