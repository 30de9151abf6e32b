/**
 * `arbor registry tags`: the tags of the registry's repos (TagsService), read-only. Their
 * hierarchy flags name repos: a tag is a child of its repo.
 */
import { TagsService } from "../../gen/arbor/registry/v2beta1/tags_pb.js";
import { fieldColumn, uidColumn, timeColumn } from "../output/cells.js";
import { resourceSpec } from "../resource/spec.js";
import { REPO_LOOKUP } from "./repos.js";

/** Tags as commands see them. */
export const TAGS = resourceSpec({
  noun: "tags",
  singular: "tag",
  service: TagsService,
  listRpc: "listTags",
  items: "tags",
  named: true,
  scope: "subtree",
  hierarchical: true,
  parentLookup: REPO_LOOKUP,
  description: "registry tags: the names in a repo that point at manifests (read-only)",
  rpcs: { get: "getTag" },
  body: "tag",
  columns: [fieldColumn("NAME", "name"), fieldColumn("DIGEST", "digest", 1), uidColumn(), timeColumn("UPDATED", "updateTime")],
  filters: [{ flags: "--digest <digest>", path: "digest", help: "only tags pointing at this manifest digest (sha256:...)" }],
  defaultScoped: true,
  createsNamed: false,
  notes: {
    list:
      "--parent, --children-of and --descendants-of take a repo (name or uid); any uid will do, so\n" +
      "--descendants-of <group uid> lists the tags of every repo below a group.",
    get: "A tag's name is unique only within its repo: give its uid, or a default group that holds one\nrepo with a tag of that name.",
  },
  examples: {
    list: ["arbor registry tags list --parent nginx", "arbor registry tags list --digest sha256:4c1e... -o id"],
    get: ["arbor registry tags get 0123456789abcdef0123456789abcdef01234567/0123456789abcdef/0123456789abcdef"],
  },
});
