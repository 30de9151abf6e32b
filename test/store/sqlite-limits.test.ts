/**
 * SQLite's bound LIMITs written into the statement text (src/store/sqlite-limits.ts): which
 * placeholders are a LIMIT's, what is left bound, and that SQLite answers the written statement
 * as it answered the bound one.
 */
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { inlineLimits, limitSlotsOf } from "../../src/store/sqlite-limits.js";

describe("SQLite's LIMIT written into the text", () => {
  it("writes each integer LIMIT in, keeping the other parameters bound and in order", () => {
    const page = 'select * from "roles" where "parent_uid" = ? order by "name" asc, "uid" asc limit ? offset ?';
    expect(inlineLimits(page, ["org", 51, 0])).toEqual({
      sql: 'select * from "roles" where "parent_uid" = ? order by "name" asc, "uid" asc limit 51 offset ?',
      parameters: ["org", 0],
    });
    const nested = "select c.id from (select t.id as id from t where t.a = ? limit ?) as c where c.id > ? LIMIT\n\t? offset ?";
    expect(inlineLimits(nested, ["a", 5000, 7, -1, 3])).toEqual({
      sql: "select c.id from (select t.id as id from t where t.a = ? limit 5000) as c where c.id > ? LIMIT\n\t-1 offset ?",
      parameters: ["a", 7, 3],
    });
    expect(inlineLimits("select * from t limit ?", [10n])).toEqual({ sql: "select * from t limit 10", parameters: [] });
  });

  it("counts no placeholder inside quotes or comments, and takes no quoted name for the keyword", () => {
    const text = `select '?', 'it''s ? limit ?' as q, "limit" as l, [limit] from t -- limit ?
      where a = ? and "b?" = ? /* limit ? */ limit /* rows */ ?`;
    const { sql, parameters } = inlineLimits(text, [1, 2, 3]);
    expect(parameters).toEqual([1, 2]);
    expect(sql).toBe(text.replace("/* rows */ ?", "/* rows */ 3"));
    expect(inlineLimits('select "limit" from t where "limit" = ?', [4])).toEqual({
      sql: 'select "limit" from t where "limit" = ?',
      parameters: [4],
    });
  });

  it("leaves a LIMIT bound unless its value is an integer, and a text with other placeholders alone", () => {
    const page = "select * from t where a = ? limit ?";
    for (const value of ["5", 2.5, null, undefined, Number.MAX_SAFE_INTEGER + 2, Number.NaN]) {
      expect(inlineLimits(page, ["x", value])).toEqual({ sql: page, parameters: ["x", value] });
    }
    for (const text of [
      "select * from t where a = ?1 limit ?",
      "select * from t where a = :a limit ?",
      "select * from t where a = $a limit ?",
    ]) {
      expect(limitSlotsOf(text)).toBeNull();
    }
    expect(limitSlotsOf("select * from t where a = ?")).toBeNull();
    expect(limitSlotsOf("select * from t where a = ? limit 10")).toBeNull();
    expect(limitSlotsOf("select 'unclosed from t limit ?")).toBeNull();
    expect(limitSlotsOf("select * from t /* unclosed limit ?")).toBeNull();
  });

  it("answers what the statement with its LIMIT bound answers", () => {
    const db = new BetterSqlite3(":memory:");
    db.exec("create table t (id integer primary key, parent text, name text)");
    const insert = db.prepare("insert into t (parent, name) values (?, ?)");
    for (let i = 0; i < 40; i++) insert.run(i % 3 === 0 ? "a" : "b", `n${(i * 7) % 40}`);
    const texts = [
      "select * from t where parent = ? order by name limit ? offset ?",
      "select c.id from (select id from t where parent = ? order by name desc limit ?) as c where c.id > ? order by c.id limit ?",
      "select count(*) as n from (select id from t where name > ? limit ?)",
    ];
    const values: unknown[][] = [
      ["a", 5, 2],
      ["b", 0, 0],
      ["a", -1, 3],
      ["b", 12, 0, 3],
      ["a", 100, 10, 1],
      ["n1", 4],
    ];
    for (const text of texts) {
      for (const parameters of values) {
        const count = (text.match(/\?/g) ?? []).length;
        if (parameters.length !== count) continue;
        const inlined = inlineLimits(text, parameters);
        expect(inlined.sql).not.toBe(text);
        expect(db.prepare(inlined.sql).all(...inlined.parameters)).toEqual(db.prepare(text).all(...parameters));
      }
    }
    db.close();
  });
});
