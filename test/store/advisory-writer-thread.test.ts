/**
 * The thread a large import writes from (src/store/advisory-writer-thread.ts), on each engine: what it
 * writes is what the store's own put writes, a write the store refuses comes back as the store's
 * error (its code, the driver's words), and once closed it writes nothing more. What an import
 * through it leaves is test/osv/bulk-import.test.ts's.
 */
import { Kysely, sql } from "kysely";
import { expect, it } from "vitest";
import { prepareAdvisory, type PreparedAdvisory } from "../../src/domain/advisories.js";
import { ApiError, Code } from "../../src/domain/errors.js";
import { openAdvisoryWriterThread } from "../../src/store/advisory-writer-thread.js";
import { engineSetup } from "../../src/store/dialect.js";
import { corpusDocument } from "../support/advisory-corpus.js";
import { describeEachEngine } from "../support/engines.js";

const T = Date.UTC(2026, 10, 27, 4, 0, 0);

describeEachEngine("the advisory writer thread", (t) => {
  const store = () => t.store();
  const open = () => openAdvisoryWriterThread(t.options());

  if (t.engine === "postgres") {
    it("opens connections whose commits do not wait for the WAL's flush only when asked (the import's writer asks)", async () => {
      const setting = async (synchronousCommit: boolean | undefined) => {
        const db = new Kysely({ dialect: engineSetup({ ...t.options(), synchronousCommit }).dialect });
        try {
          const { rows } = await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(db);
          return rows[0]?.synchronous_commit;
        } finally {
          await db.destroy();
        }
      };
      expect(await setting(false)).toBe("off");
      expect(await setting(undefined)).toBe("on");
      expect(await setting(true)).toBe("on");
    });
  }

  it("writes in batches suited to its engine", async () => {
    const writer = open();
    try {
      expect(writer.batchSize).toBe(t.engine === "sqlite" ? 500 : 300);
    } finally {
      await writer.close();
    }
  });

  it("writes what the store's own put writes, with the same outcomes", async () => {
    const writer = open();
    try {
      const first = [corpusDocument(1), corpusDocument(2), corpusDocument(3)];
      expect(await writer.putPrepared(first.map(prepareAdvisory), T)).toEqual(["imported", "imported", "imported"]);
      // A newer version replaces, an equal one does not; an earlier version of the same call counts as stored.
      const again = [corpusDocument(1, 1), corpusDocument(2), corpusDocument(4), corpusDocument(4, 1)];
      expect(await writer.putPrepared(again.map(prepareAdvisory), T + 1)).toEqual(["updated", "unchanged", "imported", "updated"]);
      for (const version of [corpusDocument(1, 1), corpusDocument(2), corpusDocument(3), corpusDocument(4, 1)]) {
        const stored = await store().advisories.get(version.uid);
        expect(stored?.document).toEqual(version.document);
        expect(stored?.modifiedTime).toBe(version.modifiedTime);
        expect(stored?.createTime).toBe(version.uid === corpusDocument(4).uid ? T + 1 : T);
      }
      await writer.foldCounts();
      expect(await store().advisories.count({})).toBe(4);
    } finally {
      await writer.close();
    }
  });

  it("answers a write the store refuses with the store's error: its code, and the driver's words as its cause", async () => {
    const writer = open();
    try {
      const version = corpusDocument(20);
      // An index naming an alias twice breaks the aliases' primary key: the whole batch is refused.
      const refused: PreparedAdvisory = {
        ...prepareAdvisory(version),
        index: { ...prepareAdvisory(version).index, aliases: ["X-1", "X-1"] },
      };
      const error = await writer.putPrepared([prepareAdvisory(corpusDocument(21)), refused], T).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe(Code.INTERNAL);
      expect(((error as ApiError).cause as Error).message).toMatch(
        t.engine === "sqlite"
          ? /UNIQUE constraint failed: advisory_aliases/
          : /duplicate key value violates unique constraint "advisory_aliases_pkey"/,
      );
      expect(await store().advisories.get(corpusDocument(21).uid)).toBeUndefined();
      expect(await store().advisories.get(version.uid)).toBeUndefined();
    } finally {
      await writer.close();
    }
  });

  it("writes nothing once closed: a write then is UNAVAILABLE, and closing again is a no-op", async () => {
    const writer = open();
    await writer.close();
    await writer.close();
    await expect(writer.putPrepared([prepareAdvisory(corpusDocument(30))], T)).rejects.toMatchObject({ code: Code.UNAVAILABLE });
    await expect(writer.foldCounts()).rejects.toMatchObject({ code: Code.UNAVAILABLE });
    expect(await store().advisories.get(corpusDocument(30).uid)).toBeUndefined();
  });
});
