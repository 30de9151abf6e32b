import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import { resolveUpdateMask } from "../../src/domain/field-mask.js";
import {
  groupInviteSortable,
  groupInviteUpdatable,
  inviteTtlMs,
  MAX_INVITE_TTL_MS,
  validateInviteEmail,
  validateKeyIdFilter,
} from "../../src/domain/group-invite-rules.js";
import { INVITE_CODE_PREFIX, inviteCodeHash, newInviteCode } from "../../src/domain/invite-code.js";
import { parseOrderBy } from "../../src/domain/list.js";
import { violationOf } from "../server/rest/violation.js";

const d = (seconds: bigint, nanos = 0) => ({ seconds, nanos });
const THIRTY_DAYS = BigInt(30 * 24 * 3600);

describe("invite ttl", () => {
  it.each([
    ["1h", d(3600n), 3_600_000],
    ["1.5s", d(1n, 500_000_000), 1500],
    ["1ms", d(0n, 1_000_000), 1],
    ["1.999999ms", d(0n, 1_999_999), 1],
    ["30 days", d(THIRTY_DAYS), MAX_INVITE_TTL_MS],
  ])("%s is %d ms", (_name, ttl, ms) => {
    expect(inviteTtlMs(ttl)).toBe(ms);
  });

  it.each([
    ["absent", undefined],
    ["zero", d(0n)],
    ["under a millisecond", d(0n, 999_999)],
    ["negative", d(-60n)],
    ["negative nanos", d(0n, -5)],
    ["30 days and a millisecond", d(THIRTY_DAYS, 1_000_000)],
    ["31 days", d(THIRTY_DAYS + 86_400n)],
    ["beyond any number", d(2n ** 62n)],
  ])("refuses a ttl %s with INVALID_ARGUMENT on ttl", (_name, ttl) => {
    expect(violationOf(() => inviteTtlMs(ttl))).toEqual({ code: Code.INVALID_ARGUMENT, field: "ttl" });
  });
});

describe("invite email and key id", () => {
  it.each(["", "ada@example.com", "first.last+tag@sub.example.co.uk"])("accepts email %j", (email) => {
    expect(() => validateInviteEmail(email)).not.toThrow();
  });

  it.each([
    "ada",
    "ada@",
    "@example.com",
    "ada@example",
    "ada @example.com",
    "ada@exa mple.com",
    "a@b@example.com",
    `${"a".repeat(250)}@example.com`,
    "ada@example.com\n",
  ])("refuses email %j", (email) => {
    expect(violationOf(() => validateInviteEmail(email))).toEqual({ code: Code.INVALID_ARGUMENT, field: "email" });
  });

  it.each(["0123456789abcdef"])("accepts key id %s", (k) => expect(() => validateKeyIdFilter(k)).not.toThrow());
  it.each(["0123456789ABCDEF", "0123", "0123456789abcdef0", "zzzzzzzzzzzzzzzz"])("refuses key id %s", (k) => {
    expect(violationOf(() => validateKeyIdFilter(k))).toEqual({ code: Code.INVALID_ARGUMENT, field: "key_id" });
  });
});

describe("invite updates and order", () => {
  it.each(["email", "singleUse", "single_use", "ttl", "*"])("takes %s in a mask", (path) => {
    expect(resolveUpdateMask([path], groupInviteUpdatable, []).size).toBeGreaterThan(0);
  });

  it.each(["uid", "code", "keyId", "key_id", "expirationTime", "createTime", "role", "colour"])("refuses %s in a mask", (path) => {
    expect(violationOf(() => resolveUpdateMask([path], groupInviteUpdatable, []))).toEqual({
      code: Code.INVALID_ARGUMENT,
      field: "update_mask",
    });
  });

  it("orders newest first by default; created_at and expiration_time are sortable", () => {
    expect(parseOrderBy("", groupInviteSortable)).toEqual([
      { field: "create_time", desc: true },
      { field: "uid", desc: true },
    ]);
    expect(parseOrderBy("created_at", groupInviteSortable)[0]).toEqual({ field: "create_time", desc: false });
    expect(parseOrderBy("expiration_time desc", groupInviteSortable)[0]).toEqual({ field: "expiration_time", desc: true });
    expect(violationOf(() => parseOrderBy("name", groupInviteSortable)).field).toBe("order_by");
  });
});

describe("invite codes", () => {
  const ids = (hex: string) => ({ hex: (bytes: number) => hex.repeat(bytes * 2).slice(0, bytes * 2) });

  it("is the prefix and 32 random bytes in base64url, stored only as its SHA-256", () => {
    const { code, codeHash, keyId } = newInviteCode(ids("ab"));
    expect(code).toBe(INVITE_CODE_PREFIX + Buffer.alloc(32, 0xab).toString("base64url"));
    expect(code).toMatch(/^arbinv_[A-Za-z0-9_-]{43}$/);
    expect(codeHash).toBe(createHash("sha256").update(code).digest("hex"));
    expect(inviteCodeHash(code)).toBe(codeHash);
    expect(keyId).toBe(codeHash.slice(0, 16));
    expect(keyId).toMatch(/^[0-9a-f]{16}$/);
  });

  it("differs with the randomness", () => {
    expect(newInviteCode(ids("01")).code).not.toBe(newInviteCode(ids("02")).code);
    expect(newInviteCode(ids("01")).keyId).not.toBe(newInviteCode(ids("02")).keyId);
  });
});
