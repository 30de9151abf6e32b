/**
 * The tables as Kysely sees them (the shape migrations leave behind) and the executor every
 * repository takes, so the same code runs on the pool or inside a transaction.
 */
import type { Kysely } from "kysely";

/** A row of `groups`. Times are milliseconds since the epoch. */
export interface GroupsTable {
  uid: string;
  parent_uid: string | null;
  name: string;
  description: string;
  create_time: number;
  update_time: number;
}

/** A row of `role_bindings`. */
export interface RoleBindingsTable {
  uid: string;
  group_uid: string;
  identity_uid: string;
  role_uid: string;
  create_time: number;
}

/** A row of `signing_keys`. */
export interface SigningKeysTable {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  create_time: number;
  rotate_time: number;
  retire_time: number;
}

/** A row of `settings`. */
export interface SettingsTable {
  name: string;
  value: string;
}

/** Every table of the current schema. */
export interface Database {
  groups: GroupsTable;
  role_bindings: RoleBindingsTable;
  signing_keys: SigningKeysTable;
  settings: SettingsTable;
}

/** The pool or a transaction: a Kysely Transaction is a Kysely too. */
export type Executor = Kysely<Database>;

/** Runs fn in a transaction: the caller's, when db already is one, else a new one. */
export async function inTransaction<T>(db: Executor, fn: (tx: Executor) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
