/**
 * The mapping between a record and its row where a field is kept as it is in the column of its
 * snake_case name (`parentUid` in `parent_uid`), as most of a resource's fields are. A store
 * declares those fields once and maps the rest (JSON, flags) itself.
 */
import { toSnake } from "../domain/field-mask.js";

/** The fields of a named resource in a group (groups, repos, roles, identities), kept as they are. */
export const NAMED_FIELDS = { uid: true, parentUid: true, name: true, description: true, createTime: true, updateTime: true } as const;

/** snake_case of a lowerCamelCase name, as a type. */
type Snake<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${Snake<Rest>}`
  : "";

/** The columns of the fields K of R, each holding its field's value. */
export type SnakeRow<R, K extends keyof R & string = keyof R & string> = { [F in K as Snake<F>]: R[F] };

/** A record's fields K to and from their columns. */
export interface SnakeColumns<R, K extends keyof R & string> {
  /** The columns of the record's fields K. */
  toRow(record: Pick<R, K>): SnakeRow<R, K>;
  /** The fields K of the row's columns, in the order declared. */
  toRecord(row: SnakeRow<R, K>): Pick<R, K>;
}

/**
 * The fields of R kept as they are, every one named (true) in the order the record lists them,
 * or all but those the store maps itself (Omit R's others, then name the rest).
 */
export function snakeColumns<R, K extends keyof R & string = keyof R & string>(fields: Record<K, true>): SnakeColumns<R, K> {
  const pairs = Object.keys(fields).map((field) => [field, toSnake(field)] as const);
  // Plain loops: Object.fromEntries over a mapped array made two arrays per field of every row
  // read, about 4 % of a hydrated page of role bindings (S8's assignments).
  return {
    toRow: (record) => {
      const row: Record<string, unknown> = {};
      for (const [field, column] of pairs) row[column] = record[field as K];
      return row as SnakeRow<R, K>;
    },
    toRecord: (row) => {
      const record: Record<string, unknown> = {};
      for (const [field, column] of pairs) record[field] = (row as Record<string, unknown>)[column];
      return record as Pick<R, K>;
    },
  };
}
