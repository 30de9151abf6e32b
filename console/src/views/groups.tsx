/**
 * An organization's groups: a tree (each level listed a page at a time, expanded on demand) and
 * the selected group's details, where it is renamed, described, given a child or deleted. The
 * URL names the selected group (`/groups/<uid>`), its organization being the uid's first part.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, problemOf, type Group, type Problem } from "../api.js";
import { navigate } from "../router.js";
import { Link, Loading, ProblemBox } from "../ui.js";

const PAGE_SIZE = 50;

/** One group's children, as far as listed. */
interface Level {
  groups: Group[];
  next: string | undefined;
}

/** The tree's state shared by its nodes: the levels listed so far, and which are open. */
interface Tree {
  levels: Map<string, Level>;
  open: Set<string>;
  version: number;
}

function ancestorsOf(uid: string): string[] {
  const parts = uid.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

export function GroupsView({ uid }: { uid: string }) {
  const org = uid.split("/")[0] as string;
  const [tree, setTree] = useState<Tree>(() => ({ levels: new Map(), open: new Set([org, ...ancestorsOf(uid), uid]), version: 0 }));
  const [root, setRoot] = useState<Group>();
  const [problem, setProblem] = useState<Problem>();
  const bump = () => setTree((t) => ({ ...t, version: t.version + 1 }));

  const loadLevel = async (parent: string, more = false) => {
    const before = tree.levels.get(parent);
    try {
      const r = await api.iam.v2beta1.groups.listGroups({
        uidp: { childrenOf: parent },
        pageSize: PAGE_SIZE,
        pageToken: more ? (before?.next ?? "") : "",
        orderBy: "name",
      });
      tree.levels.set(parent, { groups: [...(more ? (before?.groups ?? []) : []), ...r.groups], next: r.nextPageToken || undefined });
      bump();
    } catch (e) {
      setProblem(problemOf(e));
    }
  };

  useEffect(() => {
    setProblem(undefined);
    api.iam.v2beta1.groups
      .getGroup({ uid: org })
      .then(setRoot)
      .catch((e: unknown) => setProblem(problemOf(e)));
    for (const open of tree.open) if (!tree.levels.has(open)) void loadLevel(open);
  }, [org]);

  const toggle = (g: string) => {
    if (tree.open.has(g)) tree.open.delete(g);
    else {
      tree.open.add(g);
      if (!tree.levels.has(g)) void loadLevel(g);
    }
    bump();
  };
  /** After a change under parent: its level is listed again. */
  const refresh = async (parent: string) => {
    tree.levels.delete(parent);
    tree.open.add(parent);
    await loadLevel(parent);
  };

  return (
    <section aria-labelledby="groups-title" class="split">
      <div class="pane">
        <h1 id="groups-title">Groups{root && <span class="muted"> of {root.name}</span>}</h1>
        <ProblemBox problem={problem} />
        {root === undefined && problem === undefined && <Loading what="the organization" />}
        {root && (
          <ul role="tree" aria-label={`Groups of ${root.name}`} class="tree" onKeyDown={treeKeys}>
            <Node group={root} tree={tree} selected={uid} toggle={toggle} loadMore={(p) => void loadLevel(p, true)} level={1} />
          </ul>
        )}
      </div>
      <div class="pane detail">
        <GroupDetail key={uid} uid={uid} onChanged={refresh} />
      </div>
    </section>
  );
}

/**
 * Arrow keys in the tree, as the ARIA tree pattern has them: up and down move between the visible
 * groups, right expands (or goes to the first child), left collapses (or goes to the parent),
 * Home and End go to the first and last. Tab still reaches every link and button.
 */
function treeKeys(e: KeyboardEvent): void {
  const tree = e.currentTarget as HTMLElement;
  const links = [...tree.querySelectorAll<HTMLAnchorElement>("a")];
  const here = document.activeElement instanceof HTMLElement ? document.activeElement.closest<HTMLElement>("[role=treeitem]") : null;
  if (here === null) return;
  const link = here.querySelector<HTMLAnchorElement>("a");
  const at = link === null ? -1 : links.indexOf(link);
  const toggle = here.querySelector<HTMLButtonElement>(".toggle");
  const expanded = here.getAttribute("aria-expanded") === "true";
  let target: HTMLElement | undefined | null;
  if (e.key === "ArrowDown") target = links[at + 1];
  else if (e.key === "ArrowUp") target = links[at - 1];
  else if (e.key === "Home") target = links[0];
  else if (e.key === "End") target = links[links.length - 1];
  else if (e.key === "ArrowRight") {
    if (!expanded) toggle?.click();
    else target = links[at + 1];
    if (!expanded) target = link;
  } else if (e.key === "ArrowLeft") {
    if (expanded) {
      toggle?.click();
      target = link;
    } else target = here.parentElement?.closest<HTMLElement>("[role=treeitem]")?.querySelector("a");
  } else return;
  e.preventDefault();
  target?.focus();
}

function Node(props: {
  group: Group;
  tree: Tree;
  selected: string;
  level: number;
  toggle: (uid: string) => void;
  loadMore: (parent: string) => void;
}) {
  const { group, tree, selected, toggle, loadMore, level } = props;
  const open = tree.open.has(group.uid);
  const children = tree.levels.get(group.uid);
  return (
    <li role="treeitem" aria-expanded={open} aria-selected={selected === group.uid} aria-level={level}>
      <div class={`node${selected === group.uid ? " selected" : ""}`}>
        <button type="button" class="toggle" aria-label={`${open ? "Collapse" : "Expand"} ${group.name}`} onClick={() => toggle(group.uid)}>
          {open ? "▾" : "▸"}
        </button>
        <Link to={`/groups/${group.uid}`} aria-current={selected === group.uid ? "page" : undefined}>
          {group.name}
        </Link>
      </div>
      {open && (
        <ul role="group">
          {children === undefined && (
            <li role="none">
              <Loading what="groups" />
            </li>
          )}
          {children?.groups.length === 0 && (
            <li role="none" class="muted small">
              no groups below
            </li>
          )}
          {children?.groups.map((g) => (
            <Node key={g.uid} {...props} group={g} level={level + 1} />
          ))}
          {children?.next && (
            <li role="none">
              <button type="button" onClick={() => loadMore(group.uid)}>
                More groups
              </button>
            </li>
          )}
        </ul>
      )}
    </li>
  );
}

function GroupDetail({ uid, onChanged }: { uid: string; onChanged: (parent: string) => Promise<void> }) {
  const [group, setGroup] = useState<Group>();
  const [problem, setProblem] = useState<Problem>();
  const [notice, setNotice] = useState<string>();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [childName, setChildName] = useState("");
  const [childDescription, setChildDescription] = useState("");
  const [confirming, setConfirming] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const parent = uid.includes("/") ? uid.slice(0, uid.lastIndexOf("/")) : undefined;

  useEffect(() => {
    api.iam.v2beta1.groups
      .getGroup({ uid })
      .then((g) => {
        setGroup(g);
        setName(g.name);
        setDescription(g.description);
      })
      .catch((e: unknown) => setProblem(problemOf(e)));
  }, [uid]);

  const act = async (what: () => Promise<void>) => {
    setProblem(undefined);
    setNotice(undefined);
    try {
      await what();
    } catch (e) {
      setProblem(problemOf(e));
    }
  };

  if (group === undefined) return problem ? <ProblemBox problem={problem} /> : <Loading what="the group" />;
  return (
    <div>
      <h2 ref={heading} tabIndex={-1}>
        {group.name}
      </h2>
      <dl class="facts">
        <dt>uid</dt>
        <dd>
          <code>{group.uid}</code>
        </dd>
        <dt>Description</dt>
        <dd>{group.description || <span class="muted">none</span>}</dd>
        <dt>Created</dt>
        <dd>{group.createTime ? new Date(Number(group.createTime.seconds) * 1000).toISOString() : ""}</dd>
      </dl>
      <ul class="links" aria-label="In this group">
        <li>
          <Link to={`/identities/${uid}`}>Identities</Link>
        </li>
        <li>
          <Link to={`/access/${uid}`}>Access</Link>
        </li>
        <li>
          <Link to={`/invites/${uid}`}>Invites</Link>
        </li>
      </ul>
      <ProblemBox problem={problem} />
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form
        aria-labelledby="edit-title"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const g = await api.iam.v2beta1.groups.updateGroup({
              group: { uid, name, description },
              updateMask: { paths: ["name", "description"] },
            });
            setGroup(g);
            setNotice("Saved.");
            if (parent !== undefined) await onChanged(parent);
          });
        }}
      >
        <h3 id="edit-title">Rename or describe</h3>
        <label for="group-name">Name</label>
        <input id="group-name" value={name} onInput={(e) => setName(e.currentTarget.value)} required />
        <label for="group-description">Description</label>
        <input id="group-description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        <button type="submit">Save</button>
      </form>
      <form
        aria-labelledby="create-title"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const created = await api.iam.v2beta1.groups.createGroup({
              parent: uid,
              group: { name: childName, description: childDescription },
            });
            setChildName("");
            setChildDescription("");
            setNotice(`Created ${created.name}.`);
            await onChanged(uid);
          });
        }}
      >
        <h3 id="create-title">New group below {group.name}</h3>
        <label for="child-name">Name</label>
        <input id="child-name" value={childName} onInput={(e) => setChildName(e.currentTarget.value)} required />
        <label for="child-description">Description</label>
        <input id="child-description" value={childDescription} onInput={(e) => setChildDescription(e.currentTarget.value)} />
        <button type="submit" class="primary">
          Create group
        </button>
      </form>
      {parent !== undefined && (
        <div class="danger">
          <h3>Delete</h3>
          {!confirming ? (
            <button type="button" onClick={() => setConfirming(true)}>
              Delete {group.name}…
            </button>
          ) : (
            <p>
              Delete {group.name} for good?{" "}
              <button
                type="button"
                class="destructive"
                onClick={() =>
                  void act(async () => {
                    setConfirming(false);
                    await api.iam.v2beta1.groups.deleteGroup({ uid });
                    await onChanged(parent);
                    navigate(`/groups/${parent}`);
                  })
                }
              >
                Delete
              </button>{" "}
              <button type="button" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </p>
          )}
        </div>
      )}
      <p>
        <Link to={`/groups/${uid.split("/")[0] ?? uid}`}>Organization root</Link>
      </p>
    </div>
  );
}
