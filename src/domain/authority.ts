/**
 * Changes to who can do what: the writes that can hand someone a capability. The stores report
 * each such write as it happens, whoever calls them, and an API call's transaction commits only
 * once the escalation guard has found that the caller holds, wherever the change reaches, every
 * capability it hands out (DESIGN 1.8, "No escalation"). A write missing from this list is a
 * write that can escalate: a store method that changes any of these rows reports it.
 */

/** One write that changes, or may change, what some identity can do. */
export type AuthorityChange =
  /** A role binding made or changed: its identity now holds its role at its group. */
  | { kind: "binding"; groupUid: string; identityUid: string; roleUid: string }
  /** An invite made or changed: whoever holds its code may take its role at its group. */
  | { kind: "invite"; groupUid: string; roleUid: string }
  /** A custom role's capabilities replaced: wherever it is used, `after` is now granted. */
  | { kind: "role-capabilities"; roleUid: string; before: readonly string[]; after: readonly string[] }
  /** How an identity authenticates set or changed: whoever now matches it holds its bindings. */
  | { kind: "authentication"; identityUid: string }
  /**
   * An identity provider made, or changed in what decides who logs in through it or what they
   * get: whoever logs in through it is bound to its default role at its group.
   */
  | { kind: "login-provider"; groupUid: string; defaultRoleUid: string }
  /** An organization made: its creator's owner binding there is the one grant no one held before. */
  | { kind: "organization"; groupUid: string };

/** Where a store reports the authority changes it writes. */
export type AuthorityRecorder = (change: AuthorityChange) => void;
