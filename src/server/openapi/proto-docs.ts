/**
 * The proto comments (collected at `npm run generate` into src/gen/proto_comments.ts) as OpenAPI
 * text: one paragraph per blank-line-separated block, and a one-sentence summary.
 */
import { PROTO_COMMENTS } from "../../gen/proto_comments.js";

/** The comment of a fully-qualified name, its lines joined into paragraphs; undefined when there is none. */
export function protoDoc(name: string): string | undefined {
  const text = PROTO_COMMENTS.get(name);
  return text
    ?.split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, " "))
    .join("\n\n");
}

/** The first sentence of a comment, for an operation's summary. */
export function firstSentence(text: string): string {
  const m = /^(.+?\.)(\s|$)/.exec(text);
  return m?.[1] ?? text;
}
