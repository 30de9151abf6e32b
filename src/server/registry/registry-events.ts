/**
 * Reading CNCF Distribution's notifications (`application/vnd.docker.distribution.events.v1+json`):
 * an envelope `{"events": [...]}` whose events name an action and a target. Only what the index
 * keeps is taken: pushes of manifests and deletes. Blob pushes, pulls and mounts are left out.
 */
import { invalidArgument } from "../../domain/errors.js";
import { isDigest } from "../../domain/repos.js";
import type { DeleteEvent, PushEvent } from "../../services/registry/registry-index.js";

/** One event the index records. */
export type RegistryEvent = { kind: "push"; event: PushEvent } | { kind: "delete"; event: DeleteEvent };

/** The manifest media types: a push of anything else is a blob (a layer or a config). */
export const MANIFEST_MEDIA_TYPES: ReadonlySet<string> = new Set([
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.docker.distribution.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v1+prettyjws",
]);

/** The media types of layers and configs, which the registry need not send at all. */
export const BLOB_MEDIA_TYPES: readonly string[] = [
  "application/octet-stream",
  "application/vnd.oci.image.layer.v1.tar",
  "application/vnd.oci.image.layer.v1.tar+gzip",
  "application/vnd.oci.image.layer.v1.tar+zstd",
  "application/vnd.oci.image.config.v1+json",
  "application/vnd.docker.image.rootfs.diff.tar.gzip",
  "application/vnd.docker.container.image.v1+json",
];

type Json = Record<string, unknown>;

/** The events of an envelope worth indexing, in order; INVALID_ARGUMENT naming the field that is wrong. */
export function parseRegistryEvents(body: unknown): RegistryEvent[] {
  if (!isObject(body) || !Array.isArray(body.events))
    throw invalidArgument("events", "the body must be a JSON object with an events array");
  const out: RegistryEvent[] = [];
  body.events.forEach((raw: unknown, i) => {
    const at = `events[${i}]`;
    if (!isObject(raw)) throw invalidArgument(at, "must be an object");
    const action = text(raw, "action", at, true) as string;
    if (action !== "push" && action !== "delete") return;
    const target = raw.target;
    if (!isObject(target)) throw invalidArgument(`${at}.target`, "must be an object");
    const repository = text(target, "repository", `${at}.target`, true) as string;
    const digest = text(target, "digest", `${at}.target`, false);
    const tag = text(target, "tag", `${at}.target`, false);
    const time = timeOf(raw, at);
    if (digest !== undefined && !isDigest(digest)) {
      throw invalidArgument(`${at}.target.digest`, "is not a digest (algorithm:hex)");
    }
    if (action === "push") {
      // Blob events have no tag and a blob's media type; the registry may be told to skip them.
      if (!MANIFEST_MEDIA_TYPES.has(text(target, "mediaType", `${at}.target`, false) ?? "")) return;
      if (digest === undefined) throw invalidArgument(`${at}.target.digest`, "a manifest push names its digest");
      out.push({ kind: "push", event: { repository, digest, time, ...(tag !== undefined && { tag }) } });
    } else if (digest !== undefined || tag !== undefined) {
      out.push({ kind: "delete", event: { repository, time, ...(digest !== undefined && { digest }), ...(tag !== undefined && { tag }) } });
    }
  });
  return out;
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A string member; undefined when absent or empty and not required. */
function text(o: Json, name: string, at: string, required: boolean): string | undefined {
  const v = o[name];
  if (v === undefined || v === null || v === "") {
    if (required) throw invalidArgument(`${at}.${name}`, "is required");
    return undefined;
  }
  if (typeof v !== "string") throw invalidArgument(`${at}.${name}`, "must be a string");
  return v;
}

function timeOf(event: Json, at: string): number {
  const stamp = text(event, "timestamp", at, true) as string;
  const time = Date.parse(stamp);
  if (Number.isNaN(time)) throw invalidArgument(`${at}.timestamp`, "is not an RFC 3339 time");
  return time;
}
