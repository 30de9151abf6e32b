/** The pieces every view shares: a failed call, loading and empty states, a link under the console. */
import type { ComponentChildren } from "preact";
import type { Problem } from "./api.js";
import { href, navigate } from "./router.js";

/** Shows a failed call: Arbor's message, the field it names, and what to remove or fix first. */
export function ProblemBox({ problem }: { problem: Problem | undefined }) {
  if (problem === undefined) return null;
  return (
    <div class="problem" role="alert">
      <p>
        <strong>{problem.message}</strong>
      </p>
      {problem.field && (
        <p>
          Field: <code>{problem.field}</code>
        </p>
      )}
      {problem.violations.length > 0 && (
        <ul aria-label="Reasons">
          {problem.violations.map((v) => (
            <li key={`${v.type}${v.subject}`}>
              <code>{v.type}</code> {v.subject && <code>{v.subject}</code>} {v.description}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A link to a route of the console, followed without reloading the page. */
export function Link(props: { to: string; children: ComponentChildren; class?: string; "aria-current"?: "page" | undefined }) {
  const { to, children } = props;
  return (
    <a
      class={props.class}
      aria-current={props["aria-current"]}
      href={href(to)}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
