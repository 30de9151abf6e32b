/**
 * U+0000 in request text, refused alike on every engine and transport (docs/api.md, "Text"):
 * PostgreSQL's text cannot hold it, so left to the store it failed there (INTERNAL) and passed on
 * SQLite. One walk of the request, before anything reads it, answers INVALID_ARGUMENT naming the
 * field instead, whatever the field and whatever the service does with it.
 */
import { getOption, hasOption, ScalarType, type DescField, type DescMethod, type Message } from "@bufbuild/protobuf";
import { reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import { invalidArgument } from "../../domain/errors.js";
import { http } from "../../gen/google/api/annotations_pb.js";

/** What the refusal says of the field. */
export const NUL_REFUSED = "must not contain U+0000 (NUL)";

/** Throws INVALID_ARGUMENT naming the first text field of a request that holds U+0000. */
export type NulRefusal = (request: Message) => void;

/**
 * The refusal for method's requests. The field is named as a REST caller writes it, the way the
 * services name fields: inside the body by JSON name relative to the body (`claimMatch.subject`),
 * elsewhere (query and path) by proto name (`package_name`, `uidp.descendants_of`).
 */
export function createNulRefusal(method: DescMethod): NulRefusal {
  const body = hasOption(method, http) ? getOption(method, http).body : "*";
  const nameOf = (chain: readonly DescField[]): string => {
    if (body === "*") return chain.map((f) => f.jsonName).join(".");
    if (chain[0]?.name === body && chain.length > 1)
      return chain
        .slice(1)
        .map((f) => f.jsonName)
        .join(".");
    return chain.map((f) => f.name).join(".");
  };
  return (request) => {
    const chain = nulPath(reflect(method.input, request), []);
    if (chain !== undefined) throw invalidArgument(nameOf(chain), NUL_REFUSED);
  };
}

/** The fields down to the first text holding U+0000 (a map's keys and values count), or undefined. */
function nulPath(message: ReflectMessage, above: readonly DescField[]): DescField[] | undefined {
  for (const field of message.fields) {
    if (!message.isSet(field)) continue;
    const chain = [...above, field];
    switch (field.fieldKind) {
      case "scalar":
        if (field.scalar === ScalarType.STRING && holdsNul(message.get(field))) return chain;
        break;
      case "message": {
        const found = nulPath(message.get(field), chain);
        if (found !== undefined) return found;
        break;
      }
      case "list":
        for (const item of message.get(field)) {
          if (field.listKind === "scalar" && holdsNul(item)) return chain;
          if (field.listKind === "message") {
            const found = nulPath(item as ReflectMessage, chain);
            if (found !== undefined) return found;
          }
        }
        break;
      case "map":
        for (const [key, value] of message.get(field)) {
          if (holdsNul(key)) return chain;
          if (field.mapKind === "scalar" && holdsNul(value)) return chain;
          if (field.mapKind === "message") {
            const found = nulPath(value as ReflectMessage, chain);
            if (found !== undefined) return found;
          }
        }
        break;
      case "enum":
        break;
    }
  }
  return undefined;
}

function holdsNul(value: unknown): boolean {
  return typeof value === "string" && value.includes("\u0000");
}
