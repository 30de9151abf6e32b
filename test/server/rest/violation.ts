/**
 * What a call refused with, reduced to what the tests assert: the status code and the field the
 * BadRequest names (not prose).
 */
import { isApiError } from "../../../src/domain/errors.js";

/** The code and first field violation of the ApiError fn throws; a plain Error or no error fails the test. */
export function violationOf(fn: () => unknown): { code: number; field: string | undefined } {
  try {
    fn();
  } catch (e) {
    if (!isApiError(e)) throw new Error(`expected an ApiError, got ${String(e)}`, { cause: e });
    return { code: e.code, field: e.details.fieldViolations?.[0]?.field };
  }
  throw new Error("expected an ApiError, but nothing was thrown");
}
