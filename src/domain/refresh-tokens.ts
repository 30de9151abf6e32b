/**
 * Refresh token families as the store keeps them, and what rotating a token comes to.
 */
import type { UpstreamActor } from "./login.js";

/** One login's chain of refresh tokens. */
export interface RefreshFamilyRecord {
  uid: string;
  identityUid: string;
  actor: UpstreamActor;
  createTime: number;
  /** Absolute: no token of the family works after it. */
  expireTime: number;
}

/** What presenting a refresh token for rotation came to. */
export type RotationOutcome =
  | { outcome: "rotated"; family: RefreshFamilyRecord }
  /** The token was used before: a replay. The caller revokes the family. */
  | { outcome: "reused"; familyUid: string }
  /** The family has expired (and is now deleted). */
  | { outcome: "expired" }
  | { outcome: "unknown" };
