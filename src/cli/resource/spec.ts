/**
 * What the generic resource commands need to know about one API resource: its service and RPCs,
 * its table columns, its list filters and the flags that set its fields. Each resource is a
 * short table of these (src/cli/iam/*.ts); resource-commands.ts turns one into commands.
 */
import type { DescService, JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { Item } from "../output/cells.js";
import type { Column } from "../output/table.js";
import type { CommandContext } from "./context.js";

/** How names of a resource are found: its list RPC filtered by name. */
export interface Lookup {
  /** The command's noun, plural: `groups`. */
  noun: string;
  /** One of them, for messages: `group`. */
  singular: string;
  service: DescService;
  /** The list RPC's local name: `listGroups`. */
  listRpc: string;
  /** The list response's field of items, as in JSON: `groups`. */
  items: string;
  /** Whether items have names that the list's `name` filter finds (else only uids name them). */
  named: boolean;
  /**
   * Which named items the default group can mean: `subtree` (the group and everything below it)
   * or `role` (also built-in roles and the roles of the group's ancestors, which apply there).
   */
  scope: "subtree" | "role";
  /** Whether the resource lives in the group hierarchy (lists take the uidp filters). */
  hierarchical: boolean;
  /** What the hierarchy flags of its lists name when given a name: groups, unless told (tags: repos). */
  parentLookup?: Lookup;
}

/** A value a flag gives: text made into JSON, maybe by asking the API (a name resolved to a uid). */
export type FlagParser = (text: string, ctx: CommandContext) => JsonValue | Promise<JsonValue>;

/** A flag that sets one field of a request or of the resource. */
export interface FieldFlag {
  /** Commander flags: `--description <text>`. */
  flags: string;
  help: string;
  /** The field's dotted JSON path (also the update mask path): `claimMatch.subjectPattern`. */
  path: string;
  parse?: FlagParser;
  /** `list`: repeatable, values collected in an array; `map`: repeatable `key=value`, collected in an object. */
  shape?: "list" | "map";
  /** Whether create needs it. */
  required?: boolean;
  /** Where the flag exists: create and update (default), or one of them. */
  on?: "create" | "update";
}

/**
 * A create flag that is no field of the resource: something more done with the item once made
 * (identities' `--role` binds it). prepare runs before create, so a wrong value makes nothing;
 * the step it returns runs after, and must leave no half-made state when it fails.
 */
export interface CreateStep {
  /** Commander flags: `--role <role>`. */
  flags: string;
  help: string;
  prepare(ctx: CommandContext, value: string): Promise<(created: JsonObject) => Promise<void>>;
}

/** Examples for each command, without the leading `arbor <domain> <noun> <verb>`... given whole. */
export type Examples = Partial<Record<"list" | "get" | "create" | "update" | "delete", string[]>>;

/** A resource and its commands. */
export interface ResourceSpec extends Lookup {
  /** A sentence for `--help`. */
  description: string;
  /** The RPCs the service has beyond List (local names). */
  rpcs: { get: string; create?: string; update?: string; delete?: string };
  /** The request field holding the resource on create and update: `group`, `roleBinding`. */
  body: string;
  columns: Column<Item>[];
  /** The item as a table of fields shows it (get, create, update), when that differs from its JSON. */
  tableView?: (item: Item) => Item;
  /** List filters beyond the common ones (paths in the list request). */
  filters?: FieldFlag[];
  /** Flags setting the resource's fields on create and update (paths in the resource). */
  fields?: FieldFlag[];
  /** Whether the lists default to the default group's subtree (roles do not: built-ins are root-level). */
  defaultScoped: boolean;
  /** Whether create without a parent makes a root (an organization). */
  createsRoots?: boolean;
  createStep?: CreateStep;
  /** Whether create takes the name as its argument. */
  createsNamed: boolean;
  /** Text after the options of a command's help, before the examples. */
  notes?: Partial<Record<"list" | "get" | "create" | "update" | "delete", string>>;
  examples: Examples;
}

/** The local names of a service's RPCs (`listGroups`, ...). */
export type RpcOf<S extends DescService> = keyof S["method"] & string;

/** A lookup whose RPC name is checked against its service. */
export type TypedLookup<S extends DescService> = Omit<Lookup, "service" | "listRpc"> & { service: S; listRpc: RpcOf<S> };

/** A resource spec whose RPC names are checked against its service. */
export type TypedSpec<S extends DescService> = Omit<ResourceSpec, "service" | "listRpc" | "rpcs"> & {
  service: S;
  listRpc: RpcOf<S>;
  rpcs: { get: RpcOf<S>; create?: RpcOf<S>; update?: RpcOf<S>; delete?: RpcOf<S> };
};

/** A lookup, its list RPC's name checked against the service's descriptor: a typo fails the build, not a command. */
export function lookup<S extends DescService>(spec: TypedLookup<S>): TypedLookup<S> {
  return spec;
}

/** A resource spec, its RPC names checked against the service's descriptor (as lookup()). */
export function resourceSpec<S extends DescService>(spec: TypedSpec<S>): TypedSpec<S> {
  return spec;
}
