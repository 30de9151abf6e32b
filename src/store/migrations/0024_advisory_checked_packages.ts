/**
 * 0024: what a check of a package version reads of an advisory, kept on its package row
 * (issue 19, item 4): `advisory_packages.checked`, the JSON of the affected entries naming the
 * package (package, each range's type and events, versions, severity) and of the advisory's
 * aliases, summary, severity and withdrawn time. A check of 1,000 package versions then parses
 * those few hundred bytes per package row instead of every whole document of the packages.
 *
 * The column is filled here for the advisories already stored, from their documents, in batches
 * of BATCH advisories in uid order (bounded memory, however many are stored); the store writes it
 * with every package row after.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

const BATCH = 500;

/** Adds the column and fills it for every stored advisory. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  await db.schema.alterTable("advisory_packages").addColumn("checked", "text").execute();
  let after = "";
  for (;;) {
    const { rows } = await sql<{ uid: string; document: string }>`
      select uid, document from advisories where uid > ${after} order by uid limit ${BATCH}`.execute(db);
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.uid;
    const updates: [string, string, string, string][] = [];
    for (const row of rows) {
      const document = JSON.parse(row.document) as Doc;
      const seen = new Set<string>();
      for (const a of document.affected ?? []) {
        if (a.package === undefined) continue;
        const { ecosystem, name } = a.package;
        const k = `${ecosystem}\n${name}`;
        if (seen.has(k)) continue;
        seen.add(k);
        updates.push([row.uid, ecosystem, name, JSON.stringify(checked(document, ecosystem, name))]);
      }
    }
    if (engine === "sqlite") {
      // In process: one short statement per row costs less than building a large one.
      for (const [uid, ecosystem, name, json] of updates) {
        await sql`update advisory_packages set checked = ${json}
          where advisory_uid = ${uid} and ecosystem = ${ecosystem} and name = ${name}`.execute(db);
      }
    } else {
      // Over the network: one statement per 1,000 rows (4 parameters each).
      for (let i = 0; i < updates.length; i += 1_000) {
        const values = sql.join(updates.slice(i, i + 1_000).map((u) => sql`(${sql.join(u)})`));
        await sql`update advisory_packages p set checked = v.checked
          from (values ${values}) as v(advisory_uid, ecosystem, name, checked)
          where p.advisory_uid = v.advisory_uid and p.ecosystem = v.ecosystem and p.name = v.name`.execute(db);
      }
    }
  }
}

interface Affected {
  package?: { ecosystem: string; name: string };
  severity?: unknown[] | null;
  ranges?: { type: string; events: unknown[] }[];
  versions?: string[];
}

interface Doc {
  aliases?: string[] | null;
  summary?: string;
  severity?: unknown[] | null;
  withdrawn?: string;
  affected?: Affected[] | null;
}

/** The checked JSON of one package, as the store wrote it when this migration was made. */
function checked(document: Doc, ecosystem: string, name: string): unknown {
  const affected = (document.affected ?? [])
    .filter((a) => a.package !== undefined && a.package.ecosystem === ecosystem && a.package.name === name)
    .map((a) => ({
      package: { ecosystem, name },
      ...(a.severity != null && { severity: a.severity }),
      ...(a.ranges !== undefined && { ranges: a.ranges.map((r) => ({ type: r.type, events: r.events })) }),
      ...(a.versions !== undefined && { versions: a.versions }),
    }));
  return {
    ...(document.aliases != null && document.aliases.length > 0 && { aliases: document.aliases }),
    ...(document.summary !== undefined && { summary: document.summary }),
    ...(document.severity != null && document.severity.length > 0 && { severity: document.severity }),
    ...(document.withdrawn !== undefined && { withdrawn: document.withdrawn }),
    affected,
  };
}
