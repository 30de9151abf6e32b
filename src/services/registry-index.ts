/**
 * The registry index: what Arbor knows of the repos and tags held by the registry (CNCF
 * Distribution), kept from its notifications. The Docker token endpoint resolves repository paths
 * through it; the notifications endpoint records pushes and deletes through it.
 *
 * A repository path is the path of group names from the organization down, then the repo name
 * (`acme/backend-team/nginx`; DESIGN 1.9): every segment but the last names a group, the last
 * names the repo.
 */

/** Where a repository path lands. */
export interface ResolvedRepository {
  /** The group that holds (or would hold, on first push) the repo. */
  groupUid: string;
  /** The organization the group belongs to. */
  orgUid: string;
  /** The repo name: the last segment of the path. */
  repoName: string;
  /** The repo's uid when it is already indexed. */
  repoUid?: string;
}

/** A manifest pushed to the registry, as its notification tells it. */
export interface PushEvent {
  /** The repository path (`acme/backend-team/nginx`). */
  repository: string;
  /** The tag, when the manifest was pushed by tag. */
  tag?: string;
  /** The manifest digest (`sha256:...`). */
  digest: string;
  /** When the registry saw it (ms since the epoch): later events win over earlier ones. */
  time: number;
}

/** A manifest (or one tag of it) deleted from the registry. */
export interface DeleteEvent {
  repository: string;
  /** The manifest digest: every tag of the repo pointing at it goes. */
  digest?: string;
  /** Only this tag goes, when the registry names one. */
  tag?: string;
  time: number;
}

/**
 * Records registry events into repos and tags. Every method is idempotent, and an event older
 * than what a tag already reflects changes nothing, so duplicate and out-of-order deliveries are
 * harmless.
 */
export interface RegistryIndex {
  /** Resolves a repository path; null when its groups do not exist or it is not a valid path. */
  resolve(repository: string): Promise<ResolvedRepository | null>;
  /** Indexes a push: creates the repo in its group on first push, and sets the tag's digest. */
  pushed(event: PushEvent): Promise<void>;
  /** Indexes a delete: removes the tag(s) it names. */
  deleted(event: DeleteEvent): Promise<void>;
}
