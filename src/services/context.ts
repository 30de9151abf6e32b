/**
 * What a service sees of a call: who is calling and what they may do. Transports build it;
 * services never see the wire.
 */
import type { Permissions } from "../domain/permissions.js";
import type { TokenClaims } from "../auth/tokens.js";

/** An authenticated caller. */
export interface Principal {
  /** The identity uid (the token's subject). */
  uid: string;
  /** The verified token claims. */
  claims: TokenClaims;
}

export interface CallContext {
  /** The caller; undefined only for public RPCs. */
  readonly principal: Principal | undefined;
  /** The caller's permissions, read from their role bindings once per call. */
  permissions(): Promise<Permissions>;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
}

/** The principal of ctx; for RPCs that are never public. */
export function callerOf(ctx: CallContext): Principal {
  if (ctx.principal === undefined) throw new Error("RPC is not public but has no principal");
  return ctx.principal;
}
