/**
 * What makes the migrator try again (src/store/migrate.ts): Kysely's introspection reads every
 * schema of the database, so another schema dropped meanwhile (another application's, or another
 * test file's) fails it, and so does a column dropped or renamed meanwhile (another store's
 * migrations); the failure names that schema or a table in it, or comes from
 * pg_get_serial_sequence. A failure about the store's own schema, or any other failure, is not
 * retried.
 */
import { describe, expect, it } from "vitest";
import { introspectionRaced } from "../../src/store/migrate.js";

const pgError = (code: string, message: string, routine?: string) => Object.assign(new Error(message), { code, routine });

describe("introspectionRaced", () => {
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
    {
      // Seen in CI: another test file's migrations rebuilt its groups table while ours listed columns.
      name: "a column gone while its sequence was looked up",
      error: pgError("42703", 'column "parent_uid" of relation "groups" does not exist', "pg_get_serial_sequence"),
      ours: "arbor",
      want: true,
    },
    {
      name: "a column missing anywhere else (a migration's own mistake)",
      error: pgError("42703", 'column "parent_uid" of relation "groups" does not exist', "errorMissingColumn"),
      ours: "arbor",
      want: false,
    },
    { name: "any other failure", error: pgError("42601", "syntax error"), ours: "arbor", want: false },
    { name: "not an error at all", error: "oops", ours: undefined, want: false },
  ])("$name: $want", ({ error, ours, want }) => {
    expect(introspectionRaced(error, ours)).toBe(want);
  });
});
