/**
 * Capabilities as the console shows them: by dotted name (`groups.list`), grouped by the resource
 * they are about (the part before the dot), in catalogue order.
 */
import { CAPABILITIES, capabilityName, type Capability } from "../../src/client/index.js";

/** The resource a capability is about (`groups` for `groups.list`). */
export function resourceOf(cap: Capability): string {
  const name = capabilityName(cap);
  return name.slice(0, name.lastIndexOf("."));
}

/** What a capability allows on its resource (`list` for `groups.list`). */
export function actionOf(cap: Capability): string {
  const name = capabilityName(cap);
  return name.slice(name.lastIndexOf(".") + 1);
}

/** Capabilities grouped by resource, both in catalogue order; all of the catalogue when none are given. */
export function byResource(caps: Iterable<Capability> = CAPABILITIES): [string, Capability[]][] {
  const held = new Set(caps);
  const groups = new Map<string, Capability[]>();
  for (const cap of CAPABILITIES) {
    if (!held.has(cap)) continue;
    const resource = resourceOf(cap);
    groups.set(resource, [...(groups.get(resource) ?? []), cap]);
  }
  return [...groups];
}

/** A set of capabilities, one line per resource: `groups: create, list`. */
export function CapabilityList({ caps, label }: { caps: Iterable<Capability>; label: string }) {
  const groups = byResource(caps);
  if (groups.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="caps" aria-label={label}>
      {groups.map(([resource, list]) => (
        <li key={resource}>
          <strong>{resource}</strong>: {list.map(actionOf).join(", ")}
        </li>
      ))}
    </ul>
  );
}
