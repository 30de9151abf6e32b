/**
 * 0029: kept counts of the advisories affecting each package of each ecosystem (issue 19, item 1),
 * so the totalCount of an `ecosystem` and `package_name` list reads its count rows instead of
 * every index entry of the pair: `ecosystem=Debian&package_name=linux` walked 25,244 entries of
 * the (ecosystem_base, name, advisory_uid) index and grouped them into 15,231 advisories, about
 * half of its page's time on PostgreSQL at 500,000 advisories.
 *
 * Two more count keys beside 0022's and 0025's, kept by the same triggers on `advisory_packages`
 * with the same rule (an advisory counts once under a key, so a package row counts only when it
 * is the advisory's first, on insert, or last, on delete, under it):
 * - 'pkg:<n>:<ecosystem without release>:<name>' for every package row;
 * - 'pkg:<n>:<ecosystem with release>:<name>' for a row whose ecosystem holds a release (a `:`).
 * n is the ecosystem's length in characters, so the key says where the ecosystem ends: both
 * ecosystems (`Red Hat:enterprise_linux:9::appstream`) and names (Maven's `group:artifact`) may
 * hold `:`, and without it `Ubuntu:22.04:LTS` with `x` and `Ubuntu:22.04` with `LTS:x` would
 * share a key. An ecosystem without a release is its own base, so its row has the first key once.
 *
 * The triggers are also made cheaper for an advisory naming many packages. 0022 and 0025 tested
 * each key of a row against every other row of its advisory (an OR of every kind of key, which no
 * index serves), so writing one advisory of n packages cost n² row tests: 2,000 packages took
 * 0.7 s, 8,000 took 10.7 s, and two more keys would have made it 3.3 and 51 s (SQLite, scratch).
 * An import source's document may hold up to 32 MB. Now SQLite tests each key by an equality an
 * index serves, and PostgreSQL compares (advisory, key) sets by hash: linear in the rows.
 *
 * SQLite's two row triggers are made again, in this migration's transaction (no write sees a
 * store without them). Where a bulk import that never reached its end left them dropped (0026),
 * their saved definitions are replaced instead, for the build that restores them. PostgreSQL's
 * trigger functions are replaced in place. Then the pairs' counts of the advisories already
 * stored (a bulk import's build, should one be pending, counts every key again anyway).
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely, type RawBuilder } from "kysely";

/** The pair key of package row p under its column `ecosystem` or `ecosystem_base`. */
const pairKey = (p: string, column: "ecosystem" | "ecosystem_base") =>
  sql`'pkg:' || length(${sql.raw(p)}.${sql.raw(column)}) || ':' || ${sql.raw(p)}.${sql.raw(column)} || ':' || ${sql.raw(p)}.name`;

/** Keeps and backfills the pairs' counts. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  if (engine === "postgres") await postgres(db);
  else await sqlite(db);
  await sql`
    insert into advisory_counts (key, delta)
    select ${pairKey("p", "ecosystem_base")}, count(distinct p.advisory_uid) from advisory_packages p
    group by p.ecosystem_base, p.name`.execute(db);
  await sql`
    insert into advisory_counts (key, delta)
    select ${pairKey("p", "ecosystem")}, count(distinct p.advisory_uid) from advisory_packages p
    where p.ecosystem like '%:%' group by p.ecosystem, p.name`.execute(db);
}

/**
 * Each kind of key but a release's pair: the package columns it is made of, and whether only a
 * row whose ecosystem holds a release has one. `after` is one more column, which PostgreSQL tests
 * on the rows the others find rather than looks up: without statistics it served the pair's test
 * by (ecosystem_base, advisory_uid) and read every package of the advisory in that ecosystem,
 * where (name, advisory_uid) finds the few of its name. SQLite looks up all of them, by
 * (ecosystem_base, name, advisory_uid).
 */
const KINDS: readonly { key: (r: string) => RawBuilder<unknown>; columns: readonly string[]; after?: string; releaseOnly: boolean }[] = [
  { key: (r) => sql`'base:' || ${sql.raw(r)}.ecosystem_base`, columns: ["ecosystem_base"], releaseOnly: false },
  { key: (r) => sql`'eco:' || ${sql.raw(r)}.ecosystem`, columns: ["ecosystem"], releaseOnly: true },
  { key: (r) => sql`'name:' || ${sql.raw(r)}.name`, columns: ["name"], releaseOnly: false },
  { key: (r) => pairKey(r, "ecosystem_base"), columns: ["name"], after: "ecosystem_base", releaseOnly: false },
];

/** Every column of a kind's key. */
const columnsOf = (kind: (typeof KINDS)[number]) => (kind.after === undefined ? kind.columns : [...kind.columns, kind.after]);

/** The conditions that row a is of row b's advisory and has its columns (`after`'s through an expression no index serves, where given). */
const same = (a: string, b: string, columns: readonly string[], after?: string) =>
  sql.join(
    [
      ...[...columns, "advisory_uid"].map((c) => sql`${sql.raw(a)}.${sql.raw(c)} = ${sql.raw(b)}.${sql.raw(c)}`),
      ...(after === undefined ? [] : [sql`${sql.raw(a)}.${sql.raw(after)} || '' = ${sql.raw(b)}.${sql.raw(after)}`]),
    ],
    sql` and `,
  );

/** Whether row r has a key of the kind. */
const hasKind = (r: string, kind: (typeof KINDS)[number]) => (kind.releaseOnly ? sql`${sql.raw(r)}.ecosystem like '%:%'` : sql`true`);

/**
 * PostgreSQL: statement triggers over the transition tables, one statement per kind of key, each
 * testing an (advisory, key) by the key's columns, which an index of `advisory_packages` holds
 * with the advisory. On insert, a key of n new rows of an advisory counts when the table holds
 * only those n (it reads at most n + 1 entries); on delete, when it holds none. A release's pair
 * key is each row's own (the primary key is (advisory_uid, ecosystem, name)): it always counts.
 */
async function postgres(db: Kysely<any>): Promise<void> {
  const cols = (columns: readonly string[]) => sql.raw(columns.map((c) => `r.${c}`).join(", "));
  const tests = KINDS.map((kind) => ({
    inserted: sql`
      insert into advisory_counts (key, delta)
      select ${kind.key("f")}, count(*) from (
        select r.advisory_uid, ${cols(columnsOf(kind))}, count(*) as n from new_packages r
        where ${hasKind("r", kind)} group by r.advisory_uid, ${cols(columnsOf(kind))}
      ) f
      where f.n = (
        select count(*) from (select 1 from advisory_packages p where ${same("p", "f", kind.columns, kind.after)} limit f.n + 1) x)
      group by 1;`,
    deleted: sql`
      insert into advisory_counts (key, delta)
      select ${kind.key("g")}, -count(*) from (
        select distinct r.advisory_uid, ${cols(columnsOf(kind))} from old_packages r where ${hasKind("r", kind)}
      ) g
      where not exists (select 1 from advisory_packages p where ${same("p", "g", kind.columns, kind.after)})
      group by 1;`,
  }));
  for (const [event, rows, sign] of [
    ["insert", "new_packages", ""],
    ["delete", "old_packages", "-"],
  ] as const) {
    await sql`
      create or replace function ${sql.id(`arbor_count_advisory_packages_${event}`)}() returns trigger language plpgsql
      set search_path from current as $$
      begin
        ${sql.join(
          tests.map((t) => (event === "insert" ? t.inserted : t.deleted)),
          sql`\n`,
        )}
        insert into advisory_counts (key, delta)
        select ${pairKey("r", "ecosystem")}, ${sql.raw(sign)}count(*) from ${sql.raw(rows)} r where r.ecosystem like '%:%' group by 1;
        return null;
      end $$`.execute(db);
  }
}

/**
 * SQLite: row triggers, one test per key, each on the key's columns alone, which an index of
 * `advisory_packages` holds with the advisory ((ecosystem_base, advisory_uid), (ecosystem,
 * advisory_uid), (name, advisory_uid), (ecosystem_base, name, advisory_uid)): a test reads at most
 * two entries however many packages the advisory names. (A test of other columns as well made
 * SQLite walk every row of the advisory by the primary key.) On insert a key counts when the row
 * is the only one of its advisory with it, on delete when none is left. A release's pair key is
 * the row's own (the primary key is (advisory_uid, ecosystem, name)): it always counts.
 */
async function sqlite(db: Kysely<any>): Promise<void> {
  /** The row is its advisory's only one with the key (it is in the table itself). */
  const alone = (kind: (typeof KINDS)[number]) =>
    sql`(select count(*) from (select 1 from advisory_packages p where ${same("p", "new", columnsOf(kind))} limit 2)) = 1`;
  /** No row of the advisory is left with the key. */
  const gone = (kind: (typeof KINDS)[number]) =>
    sql`not exists (select 1 from advisory_packages p where ${same("p", "old", columnsOf(kind))})`;
  const triggers = {
    advisory_packages_count_insert: sql`
      create trigger advisory_packages_count_insert after insert on advisory_packages begin
        insert into advisory_counts (key, delta)
        ${sql.join(
          KINDS.map((kind) => sql`select ${kind.key("new")}, 1 where ${hasKind("new", kind)} and ${alone(kind)}`),
          sql` union all `,
        )}
        union all select ${pairKey("new", "ecosystem")}, 1 where new.ecosystem like '%:%';
      end`,
    advisory_packages_count_delete: sql`
      create trigger advisory_packages_count_delete after delete on advisory_packages begin
        insert into advisory_counts (key, delta)
        ${sql.join(
          KINDS.map((kind) => sql`select ${kind.key("old")}, -1 where ${hasKind("old", kind)} and ${gone(kind)}`),
          sql` union all `,
        )}
        union all select ${pairKey("old", "ecosystem")}, -1 where old.ecosystem like '%:%';
      end`,
  };
  for (const [name, create] of Object.entries(triggers)) {
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from sqlite_master where type = 'trigger' and name = ${name}`.execute(db);
    if (Number(rows[0]?.n ?? 0) > 0) {
      // Made again just below in the same transaction: no write sees the table without it.
      await sql`drop trigger ${sql.id(name)}`.execute(db);
      await create.execute(db);
    } else {
      // Dropped by a bulk import that never reached its end: the build that restores it makes it
      // from its saved definition, which is the new one from here on.
      const { sql: text, parameters } = create.compile(db);
      if (parameters.length > 0) throw new Error(`0029: ${name} compiled with parameters`);
      await sql`update advisory_deferred_schema set definition = ${text.trim()} where name = ${name}`.execute(db);
    }
  }
}
