/**
 * The mapping a store declares for the fields it keeps as they are (src/store/snake-columns.ts).
 */
import { describe, expect, it } from "vitest";
import { snakeColumns } from "../../src/store/snake-columns.js";

interface Thing {
  uid: string;
  parentUid: string | null;
  createTime: number;
  tags: string[];
}

describe("snakeColumns", () => {
  const columns = snakeColumns<Thing, Exclude<keyof Thing, "tags">>({ uid: true, parentUid: true, createTime: true });

  it("keeps each declared field in the column of its snake_case name, and nothing else", () => {
    const thing: Thing = { uid: "a", parentUid: null, createTime: 5, tags: ["x"] };
    const row = columns.toRow(thing);
    expect(row).toEqual({ uid: "a", parent_uid: null, create_time: 5 });
  });

  it("reads the declared fields back in the order declared, leaving other columns out", () => {
    const record = columns.toRecord({ create_time: 5, parent_uid: "p", uid: "a", ...{ tags: "[]" } });
    expect(Object.entries(record)).toEqual([
      ["uid", "a"],
      ["parentUid", "p"],
      ["createTime", 5],
    ]);
  });
});
