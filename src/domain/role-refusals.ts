/**
 * The refusal of a change to a built-in role, in a module of its own so that the role store,
 * which loads without the capability enums (test/support/open-store.ts), can raise it too.
 */
import { failedPrecondition, type ApiError } from "./errors.js";

/**
 * The refusal of a change to a built-in role: they never change. The service refuses before the
 * store is asked and the store when a write that spares them missed; through the API neither is
 * reached today (the invoker checks roles.update/roles.delete at the role's uid first, and no
 * binding grants anything at a root-level uid, so every caller gets PERMISSION_DENIED, permission
 * before state), and both stay so that the rule does not rest on that.
 */
export function builtinRoleUnchangeable(uid: string): ApiError {
  return failedPrecondition("BUILT_IN", uid, "built-in roles cannot be changed or deleted");
}
