/**
 * Fields named the way a REST caller names them: by proto name (`page_size`) or JSON name
 * (`pageSize`), nested with dots (`uidp.descendants_of`).
 */
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";

/** The field of schema with the proto name or JSON name `name`. */
export function findField(schema: DescMessage, name: string): DescField | undefined {
  // A linear scan: messages have a handful of fields, and a name index would be one more cache.
  for (const f of schema.fields) {
    if (f.name === name || f.jsonName === name) return f;
  }
  return undefined;
}

/**
 * The fields along a dotted path, or undefined when there is no such path. Every step but the
 * last is a singular message field with ordinary fields: well-known types such as Timestamp are
 * values, not containers.
 */
export function resolveFieldPath(schema: DescMessage, path: string): DescField[] | undefined {
  const chain: DescField[] = [];
  let at: DescMessage | undefined = schema;
  for (const name of path.split(".")) {
    const field: DescField | undefined = at === undefined ? undefined : findField(at, name);
    if (field === undefined) return undefined;
    chain.push(field);
    at = field.fieldKind === "message" && !hasCustomJsonRepresentation(field.message) ? field.message : undefined;
  }
  return chain;
}

/** The path of a chain of fields in proto names (`group.uid`), as update masks and bindings spell it. */
export function protoPath(chain: readonly DescField[]): string {
  return chain.map((f) => f.name).join(".");
}

/** The message that holds the last field of chain, creating the messages on the way. */
export function holderOf(root: ReflectMessage, chain: readonly DescField[]): ReflectMessage {
  let at = root;
  for (let i = 0; i < chain.length - 1; i++) {
    const field = chain[i];
    if (field?.fieldKind !== "message") throw new Error(`${protoPath(chain)} does not lead through messages`);
    // get() of an unset message field returns a detached message, so attach one first.
    if (!at.isSet(field)) at.set(field, reflect(field.message));
    at = at.get(field);
  }
  return at;
}
