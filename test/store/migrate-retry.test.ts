/**
 * What makes the migrator try again (src/store/migrate.ts): Kysely's introspection reads every
 * schema of the database, so another schema dropped meanwhile (another application's, or another
 * test file's) fails it; the failure names that schema or a table in it. A failure about the
 * store's own schema, or any other failure, is not retried.
 */
import { describe, expect, it } from "vitest";
import { anotherSchemaDropped } from "../../src/store/migrate.js";

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("anotherSchemaDropped", () => {
  it.each([
    { name: "another schema gone", error: pgError("3F000", 'schema "theirs" does not exist'), ours: "arbor", want: true },
    {
      name: "a table of another schema gone",
      error: pgError("42P01", 'relation "theirs.advisories" does not exist'),
      ours: "arbor",
      want: true,
    },
    { name: "our own schema gone", error: pgError("3F000", 'schema "arbor" does not exist'), ours: "arbor", want: false },
    {
      name: "a table of our own schema gone",
      error: pgError("42P01", 'relation "arbor.groups" does not exist'),
      ours: "arbor",
      want: false,
    },
    { name: "an unqualified table", error: pgError("42P01", 'relation "groups" does not exist'), ours: "arbor", want: false },
    { name: "any other failure", error: pgError("42601", "syntax error"), ours: "arbor", want: false },
    { name: "not an error at all", error: "oops", ours: undefined, want: false },
  ])("$name: $want", ({ error, ours, want }) => {
    expect(anotherSchemaDropped(error, ours)).toBe(want);
  });
});
