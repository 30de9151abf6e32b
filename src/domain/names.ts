/**
 * Rules for names and descriptions (spec Group.name; DESIGN 1.5), shared by every resource that
 * has them.
 */
import { invalidArgument } from "./errors.js";

/** The pattern every name must match, as the spec writes it. */
export const NAME_PATTERN = "^[a-z0-9 ._-]{1,}$";
const NAME = new RegExp(NAME_PATTERN);

/** The longest name accepted. */
export const MAX_NAME_LENGTH = 256;
/** The longest description accepted. */
export const MAX_DESCRIPTION_LENGTH = 512;

/** Throws INVALID_ARGUMENT (field `name`, in the spec's words) unless name is valid. */
export function validateName(name: string): void {
  if (!NAME.test(name)) throw invalidArgument("name", `name must match "${NAME_PATTERN}"`);
  if (name.length > MAX_NAME_LENGTH) {
    throw invalidArgument("name", `name must be at most ${MAX_NAME_LENGTH} characters`);
  }
}

/** Throws INVALID_ARGUMENT unless description fits. */
export function validateDescription(description: string): void {
  if ([...description].length > MAX_DESCRIPTION_LENGTH) {
    throw invalidArgument("description", `description must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
  }
}

/**
 * The name and description an update changes: those the mask names, validated, taken from what
 * the request sent. The part of every named resource's update that is the same for all of them.
 */
export function namedChanges(
  mask: ReadonlySet<string>,
  sent: { name: string; description: string },
): { name?: string; description?: string } {
  const changes: { name?: string; description?: string } = {};
  if (mask.has("name")) {
    validateName(sent.name);
    changes.name = sent.name;
  }
  if (mask.has("description")) {
    validateDescription(sent.description);
    changes.description = sent.description;
  }
  return changes;
}
