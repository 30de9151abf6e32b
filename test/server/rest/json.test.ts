import { create, toJson, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { EmptySchema, TimestampSchema, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { ListGroupsResponseSchema as ListV1Schema } from "../../../src/gen/arbor/iam/v1/groups_pb.js";
import { GroupSchema, ListGroupsResponseSchema } from "../../../src/gen/arbor/iam/v2beta1/groups_pb.js";
import { RoleBindingSchema } from "../../../src/gen/arbor/iam/v2beta1/role_bindings_pb.js";
import { PingResponseSchema } from "../../../src/gen/arbor/ping/v2beta1/ping_pb.js";
import { AdvisorySchema } from "../../../src/gen/arbor/vulnerabilities/v2beta1/advisories_pb.js";
import { formatTimestamp, toApiJson } from "../../../src/server/rest/json.js";
import { ItemSchema, ShuffledSchema } from "./fixture.js";

const ORG = "0123456789abcdef0123456789abcdef01234567";
const ts = (seconds: bigint, nanos = 0) => create(TimestampSchema, { seconds, nanos });
// 2026-03-27T13:55:00Z
const S = 1774619700n;

function json<Desc extends DescMessage>(schema: Desc, init?: MessageInitShape<Desc>) {
  return toApiJson(schema, create(schema, init));
}

describe("toApiJson", () => {
  test("a group carries every field, defaults included, times with milliseconds", () => {
    expect(json(GroupSchema, { uid: ORG, name: "acme", createTime: ts(S, 423_000_000), updateTime: ts(S) })).toEqual({
      uid: ORG,
      name: "acme",
      description: "",
      resourceLimits: {},
      verified: false,
      createTime: "2026-03-27T13:55:00.423Z",
      updateTime: "2026-03-27T13:55:00.000Z",
    });
  });

  test("unset messages and unset optional fields stay absent; implicit zeros appear", () => {
    expect(json(ListGroupsResponseSchema)).toEqual({ groups: [], totalCount: "0", skipped: 0 });
    expect(json(ListGroupsResponseSchema, { nextPageToken: "t", totalCount: 14n, skipped: 10 })).toEqual({
      groups: [],
      nextPageToken: "t",
      totalCount: "14",
      skipped: 10,
    });
  });

  test("timestamps inside a list of groups are fixed too", () => {
    const out = json(ListGroupsResponseSchema, {
      groups: [
        { uid: ORG, createTime: ts(S, 1_000_000) },
        { uid: ORG, createTime: ts(S, 999_999_999) },
      ],
    }) as { groups: { createTime: string; updateTime?: string }[] };
    expect(out.groups.map((g) => g.createTime)).toEqual(["2026-03-27T13:55:00.001Z", "2026-03-27T13:55:00.999Z"]);
    expect(out.groups[0]?.updateTime).toBeUndefined();
  });

  test.each([
    [ts(S), "2026-03-27T13:55:00.000Z"],
    [ts(S, 400_000_000), "2026-03-27T13:55:00.400Z"],
    [ts(S, 423_456_789), "2026-03-27T13:55:00.423Z"],
    [ts(S, 999_999), "2026-03-27T13:55:00.000Z"],
    [ts(0n), "1970-01-01T00:00:00.000Z"],
    [ts(-1n, 500_000_000), "1969-12-31T23:59:59.500Z"],
    [ts(-62135596800n), "0001-01-01T00:00:00.000Z"],
    [ts(253402300799n, 999_999_999), "9999-12-31T23:59:59.999Z"],
    [timestampFromMs(Date.UTC(2024, 1, 29, 23, 59, 59, 7)), "2024-02-29T23:59:59.007Z"],
  ])("%o renders as %s", (value, text) => {
    expect(toApiJson(TimestampSchema, value)).toBe(text);
    expect((json(GroupSchema, { createTime: value }) as { createTime: string }).createTime).toBe(text);
  });

  test("keeps toJson's keys in toJson's order, for a group and for each group of a list", () => {
    const group = { uid: ORG, name: "acme", description: "d", createTime: ts(S), updateTime: ts(S, 5_000_000) };
    const expected = Object.keys(toJson(GroupSchema, create(GroupSchema, group), { alwaysEmitImplicit: true }) as object);
    expect(Object.keys(json(GroupSchema, group) as object)).toEqual(expected);
    const list = json(ListGroupsResponseSchema, { groups: [group, { uid: ORG }, group], nextPageToken: "t" }) as {
      groups: Record<string, unknown>[];
    };
    expect(Object.keys(list)).toEqual(["groups", "nextPageToken", "totalCount", "skipped"]);
    expect(list.groups.map((g) => Object.keys(g))).toEqual([expected, expected.filter((k) => !k.endsWith("Time")), expected]);
    expect(list.groups[2]).toMatchObject({ createTime: "2026-03-27T13:55:00.000Z", updateTime: "2026-03-27T13:55:00.005Z" });
  });

  test("keeps toJson's key order whether a Timestamp field is followed by other fields' keys or not", () => {
    // RoleBinding: createTime, then identityUid and roleUid (optional, absent unless set).
    // Advisory: publishedTime, modifiedTime, withdrawnTime, then schemaVersion (always written), then createTime.
    const times = { createTime: ts(S, 5_000_000) };
    const cases: [DescMessage, Record<string, unknown>][] = [
      [RoleBindingSchema, { uid: ORG, identity: { uid: ORG }, ...times }],
      [RoleBindingSchema, { uid: ORG, ...times, roleUid: "r" }],
      [RoleBindingSchema, { uid: ORG, identityUid: "i", roleUid: "r" }],
      [AdvisorySchema, { uid: ORG, publishedTime: ts(S), withdrawnTime: ts(S, 7_000_000), schemaVersion: "1.6.0", ...times }],
      [AdvisorySchema, { uid: ORG, modifiedTime: ts(S) }],
    ];
    for (const [schema, init] of cases) {
      const message = create(schema, init);
      const expected = toJson(schema, message, { alwaysEmitImplicit: true }) as Record<string, unknown>;
      const out = toApiJson(schema, message) as Record<string, unknown>;
      expect(Object.keys(out), `${schema.typeName} ${Object.keys(init).join(",")}`).toEqual(Object.keys(expected));
      for (const [key, value] of Object.entries(out)) {
        if (key.endsWith("Time")) expect(value).toMatch(/^2026-03-27T13:55:00\.00[057]Z$/);
        else expect(value).toEqual(expected[key]);
      }
    }
  });

  test("fields declared out of the order of their numbers keep their declaration order, the Timestamp in its place", () => {
    // toJson writes uid, alpha, zeta; the object is made again in declaration order, as it always was.
    const out = json(ShuffledSchema as DescMessage, { uid: "u", zeta: "z", alpha: "a", createTime: ts(S) } as never) as object;
    expect(Object.keys(out)).toEqual(["uid", "zeta", "alpha", "createTime"]);
    expect(out).toEqual({ uid: "u", zeta: "z", alpha: "a", createTime: "2026-03-27T13:55:00.000Z" });
  });

  test("refuses a time outside years 1 to 9999, or nanos outside a second, as toJson does", () => {
    for (const bad of [ts(-62135596801n), ts(253402300800n), ts(S, 1_000_000_000), ts(S, -1)]) {
      expect(() => toJson(GroupSchema, create(GroupSchema, { createTime: bad }))).toThrow();
      expect(() => json(GroupSchema, { createTime: bad })).toThrow(/must be from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z/);
      expect(() => json(ListGroupsResponseSchema, { groups: [{ updateTime: bad }] })).toThrow();
    }
  });

  test("writes what Date's toISOString writes, for times across years 1 to 9999", () => {
    const first = -62135596800;
    const last = 253402300799;
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 20_000; i++) {
      // Spread over the whole range, and dense around 1970, the leap days and the turns of centuries.
      const seconds = i % 2 === 0 ? Math.floor(first + next() * (last - first)) : Math.floor((next() - 0.5) * 2 * 86_400 * 366 * 400);
      const nanos = Math.floor(next() * 1_000_000_000);
      const expected = new Date(seconds * 1000 + Math.floor(nanos / 1_000_000)).toISOString();
      expect(formatTimestamp(ts(BigInt(seconds), nanos)), `${seconds}s ${nanos}ns`).toBe(expected);
    }
  });

  test("writes what toISOString writes for times of a few days in any order (the last day's date is kept)", () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const start = Number(S) - 86_400;
    for (let i = 0; i < 5_000; i++) {
      // Three days and their midnights, visited back and forth.
      const seconds = start + Math.floor(next() * 3 * 86_400) - (i % 7 === 0 ? (start % 86_400) + 1 : 0);
      const nanos = i % 5 === 0 ? 999_999_999 : Math.floor(next() * 1_000_000_000);
      const expected = new Date(seconds * 1000 + Math.floor(nanos / 1_000_000)).toISOString();
      expect(formatTimestamp(ts(BigInt(seconds), nanos)), `${seconds}s ${nanos}ns`).toBe(expected);
    }
    expect(() => formatTimestamp(ts(S, 1_000_000_000))).toThrow(RangeError);
    expect(() => formatTimestamp(ts(S, -1))).toThrow(RangeError);
  });

  test("every timestamp in the tree: nested, repeated, in maps, in oneofs, in recursive messages", () => {
    const out = json(ItemSchema, {
      createTime: ts(S),
      times: [ts(S), ts(S, 5_000_000)],
      timeMap: { a: ts(S), b: ts(S, 120_000_000) },
      inner: { issuer: "i", seenTime: ts(S) },
      inners: [{ seenTime: ts(S) }, {}],
      choice: { case: "picked", value: { seenTime: ts(S) } },
      child: { createTime: ts(S, 7_000_000), child: { times: [ts(S)] } },
    } as MessageInitShape<typeof ItemSchema>) as Record<string, unknown>;
    const z = "2026-03-27T13:55:00.000Z";
    expect(out).toMatchObject({
      createTime: z,
      times: [z, "2026-03-27T13:55:00.005Z"],
      timeMap: { a: z, b: "2026-03-27T13:55:00.120Z" },
      inner: { issuer: "i", seenTime: z },
      inners: [{ seenTime: z }, { issuer: "", subject: "" }],
      picked: { seenTime: z },
      child: { createTime: "2026-03-27T13:55:00.007Z", child: { times: [z] } },
    });
    expect(out.inners).toEqual([
      { issuer: "", subject: "", seenTime: z },
      { issuer: "", subject: "" },
    ]);
    expect(out).not.toHaveProperty("note");
    expect(out).not.toHaveProperty("label");
  });

  test("optional fields appear when set, even to their zero value", () => {
    expect(json(ItemSchema, { note: "" } as MessageInitShape<typeof ItemSchema>)).toMatchObject({ note: "" });
  });

  test("Empty is {}", () => {
    expect(json(EmptySchema)).toEqual({});
  });

  test("messages without timestamps are plain toJson with defaults", () => {
    expect(json(PingResponseSchema)).toEqual({ response: "" });
    expect(json(ListV1Schema, { items: [{ id: ORG }] })).toEqual({
      items: [{ id: ORG, name: "", description: "", resourceLimits: {}, verified: false }],
    });
  });

  test("the same schema renders alike on repeated calls (the plan is reused)", () => {
    const a = json(GroupSchema, { createTime: ts(S, 1_000_000) });
    const b = json(GroupSchema, { createTime: ts(S, 2_000_000) });
    expect([(a as { createTime: string }).createTime, (b as { createTime: string }).createTime]).toEqual([
      "2026-03-27T13:55:00.001Z",
      "2026-03-27T13:55:00.002Z",
    ]);
  });
});
