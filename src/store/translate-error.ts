/**
 * Driver errors become ApiErrors here and nowhere else. Each operation says what a constraint
 * violation means for it; being unreachable means the same everywhere; anything else is
 * internal, its cause kept for the log and its text kept from the caller.
 */
import { internal, isApiError, unavailable, type ApiError } from "../domain/errors.js";
import { classifyFailure } from "./dialect.js";

/**
 * What a constraint violation means to one operation; unnamed violations are internal errors.
 * In guard() a meaning may be a lookup of which constraint it was (a missing group or role): run
 * the statement under recoverable() then, so the lookup can run in the same transaction, and
 * guard the lookup itself.
 */
export interface Violations<E extends ApiError | Promise<ApiError> = ApiError | Promise<ApiError>> {
  unique?: () => E;
  foreignKey?: () => E;
}

/** UNAVAILABLE for a store that cannot be reached (down, gone away, or locked past the timeout). */
export function storeUnreachable(cause: unknown): ApiError {
  return unavailable("the store cannot be reached", cause);
}

/** The ApiError a failed store operation answers with; ApiErrors pass through unchanged. */
export function translateError<E extends ApiError | Promise<ApiError> = ApiError>(
  error: unknown,
  violations: Violations<E> = {},
): E | ApiError {
  if (isApiError(error)) return error;
  switch (classifyFailure(error)) {
    case "unique":
      return violations.unique?.() ?? internal(error);
    case "foreignKey":
      return violations.foreignKey?.() ?? internal(error);
    case "unavailable":
      return storeUnreachable(error);
    case "other":
      return internal(error);
  }
}

/** Runs a store operation, translating whatever it throws. */
export async function guard<T>(op: () => Promise<T>, violations: Violations = {}): Promise<T> {
  try {
    return await op();
  } catch (error) {
    throw await translateError(error, violations);
  }
}
