/**
 * Update masks (DESIGN 1.5): which fields a PATCH changes.
 */
import { invalidArgument } from "./errors.js";

/** What a resource lets an update change, by snake_case field name. */
export interface Updatable {
  /** Fields an update may change; dotted paths name members of a message field. */
  mutable: readonly string[];
  /** Fields set only by the server (uid, times, ...): naming one in a mask is an error. */
  outputOnly: readonly string[];
}

/**
 * snake_case of a lowerCamelCase path (`claimMatch.subjectPattern` to `claim_match.subject_pattern`).
 * A segment that is no lowerCamelCase name (`Description`, `create_time`, `*`) is kept as written:
 * snake_case needs nothing, and anything else is no field, which an error then names as sent.
 */
export function toSnake(path: string): string {
  return path
    .split(".")
    .map((segment) => (LOWER_CAMEL.test(segment) ? segment.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : segment))
    .join(".");
}

const LOWER_CAMEL = /^[a-z][A-Za-z0-9]*$/;

/**
 * The set of fields to change. With a mask, exactly its paths (camelCase or snake_case; `*` for
 * every mutable top-level field, each replaced whole). Without one, the fields the request populated.
 */
export function resolveUpdateMask(paths: readonly string[] | undefined, spec: Updatable, populated: readonly string[]): Set<string> {
  if (paths === undefined || paths.length === 0) {
    return new Set(populated.filter((f) => spec.mutable.includes(f)));
  }
  const out = new Set<string>();
  for (const raw of paths) {
    const path = toSnake(raw.trim());
    if (path === "*") {
      for (const f of spec.mutable) if (!f.includes(".")) out.add(f);
    } else if (spec.mutable.includes(path)) {
      out.add(path);
    } else if (spec.outputOnly.includes(path)) {
      throw invalidArgument("update_mask", `field "${raw}" is output only and cannot be updated`);
    } else {
      throw invalidArgument("update_mask", `unknown field "${raw}"`);
    }
  }
  return out;
}
