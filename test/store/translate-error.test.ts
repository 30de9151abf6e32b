/**
 * What driver errors mean: a table of the errors both drivers raise, and the ApiErrors they
 * become. The engine suites raise the common ones for real; this covers the rest.
 */
import { describe, expect, it } from "vitest";
import { ApiError, Code, notFound } from "../../src/domain/errors.js";
import { classifyFailure, type Failure } from "../../src/store/dialect.js";
import { translateError } from "../../src/store/translate-error.js";

const coded = (code: string, message = "driver text") => Object.assign(new Error(message), { code });

describe("classifyFailure", () => {
  const cases: { name: string; error: unknown; want: Failure }[] = [
    { name: "PostgreSQL unique violation", error: coded("23505"), want: "unique" },
    { name: "SQLite unique violation", error: coded("SQLITE_CONSTRAINT_UNIQUE"), want: "unique" },
    { name: "SQLite primary key violation", error: coded("SQLITE_CONSTRAINT_PRIMARYKEY"), want: "unique" },
    { name: "PostgreSQL foreign key violation", error: coded("23503"), want: "foreignKey" },
    { name: "PostgreSQL restrict violation", error: coded("23001"), want: "foreignKey" },
    { name: "SQLite foreign key violation", error: coded("SQLITE_CONSTRAINT_FOREIGNKEY"), want: "foreignKey" },
    { name: "a refused connection", error: coded("ECONNREFUSED"), want: "unavailable" },
    { name: "refused on every address", error: new AggregateError([coded("ECONNREFUSED"), coded("ECONNREFUSED")]), want: "unavailable" },
    { name: "an unknown host", error: coded("ENOTFOUND"), want: "unavailable" },
    { name: "a reset connection", error: coded("ECONNRESET"), want: "unavailable" },
    { name: "a connection exception", error: coded("08006"), want: "unavailable" },
    { name: "an administrator shutdown", error: coded("57P01"), want: "unavailable" },
    { name: "too many connections", error: coded("53300"), want: "unavailable" },
    { name: "SQLite busy past the timeout", error: coded("SQLITE_BUSY"), want: "unavailable" },
    { name: "SQLite busy on a snapshot", error: coded("SQLITE_BUSY_SNAPSHOT"), want: "unavailable" },
    { name: "SQLite unable to open the file", error: coded("SQLITE_CANTOPEN"), want: "unavailable" },
    { name: "a terminated connection", error: new Error("Connection terminated unexpectedly"), want: "unavailable" },
    { name: "a pool connect timeout", error: new Error("timeout exceeded when trying to connect"), want: "unavailable" },
    { name: "an ended pool", error: new Error("Cannot use a pool after calling end on the pool"), want: "unavailable" },
    { name: "a destroyed Kysely", error: new Error("driver has already been destroyed"), want: "unavailable" },
    { name: "a statement past query_timeout", error: new Error("Query read timeout"), want: "unavailable" },
    { name: "a statement past statement_timeout", error: coded("57014"), want: "unavailable" },
    { name: "a syntax error", error: coded("42601"), want: "other" },
    { name: "a not-null violation", error: coded("SQLITE_CONSTRAINT_NOTNULL"), want: "other" },
    { name: "a numeric code", error: Object.assign(new Error("x"), { code: 23505 }), want: "other" },
    { name: "a thrown string", error: "SQLITE_BUSY", want: "other" },
    { name: "nothing", error: undefined, want: "other" },
  ];

  it.each(cases)("calls $name $want", ({ error, want }) => {
    expect(classifyFailure(error)).toBe(want);
  });
});

describe("translateError", () => {
  const taken = () => new ApiError(Code.ALREADY_EXISTS, "Already exists: x");
  const gone = () => notFound("group", "g");

  it.each([
    { name: "unique with a meaning", error: coded("23505"), violations: { unique: taken }, want: { code: Code.ALREADY_EXISTS } },
    { name: "unique without one", error: coded("23505"), violations: { foreignKey: gone }, want: { code: Code.INTERNAL } },
    {
      name: "foreign key with a meaning",
      error: coded("SQLITE_CONSTRAINT_FOREIGNKEY"),
      violations: { foreignKey: gone },
      want: { code: Code.NOT_FOUND },
    },
    { name: "foreign key without one", error: coded("23503"), violations: {}, want: { code: Code.INTERNAL } },
    { name: "an unreachable store", error: coded("ECONNREFUSED"), violations: { unique: taken }, want: { code: Code.UNAVAILABLE } },
    { name: "anything else", error: coded("42601"), violations: { unique: taken }, want: { code: Code.INTERNAL } },
  ])("turns $name into code $want.code", ({ error, violations, want }) => {
    const translated = translateError(error, violations);
    expect(translated).toMatchObject(want);
    expect(translated.message).not.toContain("driver text");
  });

  it("keeps the driver error as the cause of UNAVAILABLE and INTERNAL", () => {
    for (const error of [coded("ECONNREFUSED"), coded("42601")]) {
      expect(translateError(error).cause).toBe(error);
    }
  });

  it("passes an ApiError through unchanged", () => {
    const error = gone();
    expect(translateError(error, { foreignKey: taken })).toBe(error);
  });
});
