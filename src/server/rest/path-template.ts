/**
 * google.api.http path templates, compiled to matchers:
 *
 *     Template = "/" Segments [ ":" Verb ]
 *     Segment  = "*" | "**" | LITERAL | "{" FieldPath [ "=" Segments ] "}"
 *
 * `{x}` means `{x=*}`. `*` matches one segment; `**` one or more (the spec allows zero, but an
 * empty uid is never a valid argument, so a path that would bind nothing is not a match).
 */
import { percentDecode, percentDecodeReserved } from "./percent-decode.js";

/** One segment of a template: a literal text, `*` (one segment) or `**` (one or more). */
export type TemplateSegment =
  { readonly kind: "literal"; readonly text: string } | { readonly kind: "wildcard" } | { readonly kind: "deep" };

/** A variable of a template: the request field it fills and the template segments it spans. */
export interface TemplateVariable {
  /** The dotted field path, as written in the template (`group.uid`). */
  readonly fieldPath: string;
  /** Index of the variable's first template segment. */
  readonly start: number;
  /** Index one past its last template segment. */
  readonly end: number;
  /** Whether reserved decoding applies (several segments or `**`): `%2F` stays encoded. */
  readonly reserved: boolean;
}

/** A compiled path template. */
export interface PathTemplate {
  /** The template as written in the proto. */
  readonly source: string;
  /** The template with variables replaced by their patterns (`/groups/**`): equal shapes match equal paths. */
  readonly shape: string;
  /** The segments, variables flattened into their patterns. */
  readonly segments: readonly TemplateSegment[];
  /** The custom verb after `:`, if any. */
  readonly verb: string | undefined;
  /** The variables, in template order. */
  readonly variables: readonly TemplateVariable[];
  /** Literal segments, the verb counting as one: the more, the more specific the template. */
  readonly literalCount: number;
  /** Whether the template has a `**` segment, which makes it the least specific of its peers. */
  readonly hasDeep: boolean;
  /** `*` segments: among equally literal templates, fewer wildcards is more specific. */
  readonly wildcardCount: number;
  /** Tells whether a path (split by splitPath) fits the template, without decoding anything. */
  fits(path: readonly string[]): boolean;
  /**
   * The decoded variable values, by field path, when the path fits; else undefined. Throws
   * INVALID_ARGUMENT naming the variable when a fitting path's text is not valid percent-encoded UTF-8.
   */
  match(path: readonly string[]): Record<string, string> | undefined;
  /**
   * The variables' text as sent, still percent-encoded, by field path, when the path fits; else
   * undefined. For a caller that decodes some variables its own way (exactly once, from this text).
   */
  matchRaw(path: readonly string[]): Record<string, string> | undefined;
}

/** Decodes one variable's raw text the way google.api.http says: reserved decoding for several segments or `**`. */
export function decodeVariable(v: TemplateVariable, raw: string): string {
  return v.reserved ? percentDecodeReserved(raw, v.fieldPath) : percentDecode(raw, v.fieldPath);
}

const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * The raw segments of a URL path (no query), or undefined when it cannot match any template: it
 * does not start with `/`, or has an empty segment (`//`, a trailing `/`).
 */
export function splitPath(path: string): string[] | undefined {
  if (!path.startsWith("/")) return undefined;
  const segments = path.slice(1).split("/");
  return segments.includes("") ? undefined : segments;
}

/** Parses and compiles a template; a malformed one is a bug in the protos, so it throws a plain Error. */
export function parsePathTemplate(source: string): PathTemplate {
  const fail = (why: string): never => {
    throw new Error(`path template "${source}": ${why}`);
  };
  if (!source.startsWith("/")) fail("must start with /");
  const [body, verb] = splitVerb(source.slice(1), fail);
  const segments: TemplateSegment[] = [];
  const variables: TemplateVariable[] = [];
  for (const piece of splitTopLevel(body, fail)) {
    if (!piece.startsWith("{")) {
      segments.push(parseSegment(piece, fail));
      continue;
    }
    if (!piece.endsWith("}")) fail(`unclosed variable in "${piece}"`);
    const inner = piece.slice(1, -1);
    const eq = inner.indexOf("=");
    const fieldPath = eq < 0 ? inner : inner.slice(0, eq);
    if (!FIELD_PATH.test(fieldPath)) fail(`bad field path "${fieldPath}"`);
    if (variables.some((v) => v.fieldPath === fieldPath)) fail(`"${fieldPath}" bound twice`);
    const pattern = eq < 0 ? ["*"] : inner.slice(eq + 1).split("/");
    const start = segments.length;
    for (const p of pattern) segments.push(parseSegment(p, fail));
    const reserved = pattern.length > 1 || pattern[0] === "**";
    variables.push({ fieldPath, start, end: segments.length, reserved });
  }
  const deepAt = segments.findIndex((s) => s.kind === "deep");
  if (segments.findLastIndex((s) => s.kind === "deep") !== deepAt) fail("more than one **");
  const shape = "/" + segments.map(segmentText).join("/") + (verb === undefined ? "" : `:${verb}`);
  return compile(source, shape, segments, verb, variables, deepAt);
}

/** Splits `a/b:verb` into the segments part and the verb, ignoring `:` inside variables. */
function splitVerb(body: string, fail: (why: string) => never): [string, string | undefined] {
  let depth = 0;
  let colon = -1;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (depth === 0 && c === "/") colon = -1;
    else if (depth === 0 && c === ":") colon = i;
  }
  if (colon < 0) return [body, undefined];
  const verb = body.slice(colon + 1);
  if (verb === "" || /[/{}*]/.test(verb)) fail(`bad verb "${verb}"`);
  return [body.slice(0, colon), verb];
}

/** Splits at the `/` outside braces: a variable's pattern keeps its own slashes. */
function splitTopLevel(body: string, fail: (why: string) => never): string[] {
  const pieces: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i <= body.length; i++) {
    const c = body[i];
    if (c === "{") {
      if (depth++ > 0) fail("nested variables");
    } else if (c === "}") {
      if (--depth < 0) fail("unbalanced }");
    } else if (depth === 0 && (c === "/" || c === undefined)) {
      pieces.push(body.slice(from, i));
      from = i + 1;
    }
  }
  if (depth !== 0) fail("unbalanced {");
  return pieces;
}

function parseSegment(text: string, fail: (why: string) => never): TemplateSegment {
  if (text === "*") return { kind: "wildcard" };
  if (text === "**") return { kind: "deep" };
  if (text === "" || /[{}*:]/.test(text)) fail(`bad segment "${text}"`);
  return { kind: "literal", text };
}

function segmentText(s: TemplateSegment): string {
  return s.kind === "literal" ? s.text : s.kind === "wildcard" ? "*" : "**";
}

function compile(
  source: string,
  shape: string,
  segments: readonly TemplateSegment[],
  verb: string | undefined,
  variables: readonly TemplateVariable[],
  deepAt: number,
): PathTemplate {
  const suffix = verb === undefined ? undefined : `:${verb}`;
  const n = segments.length;

  /** Where template segment t starts in a path whose `**` took `extra` more segments than one. */
  const boundary = (t: number, extra: number): number => (deepAt >= 0 && t > deepAt ? t + extra : t);

  /**
   * How the path lines up with the template: `extra` segments taken by `**` beyond its one, and
   * the last segment without its verb. Undefined when the path does not fit.
   */
  function align(path: readonly string[]): { extra: number; last: string } | undefined {
    const extra = path.length - n;
    if (deepAt < 0 ? extra !== 0 : extra < 0) return undefined;
    let last = path[path.length - 1] ?? "";
    if (suffix !== undefined) {
      if (!last.endsWith(suffix) || last.length === suffix.length) return undefined;
      last = last.slice(0, -suffix.length);
    }
    for (let t = 0; t < n; t++) {
      const seg = segments[t];
      if (seg?.kind !== "literal") continue;
      const p = boundary(t, extra);
      // Literals compare with the raw text: an escaped literal is a different path.
      if ((p === path.length - 1 ? last : path[p]) !== seg.text) return undefined;
    }
    return { extra, last };
  }

  return {
    source,
    shape,
    segments,
    verb,
    variables,
    literalCount: segments.filter((s) => s.kind === "literal").length + (verb === undefined ? 0 : 1),
    hasDeep: deepAt >= 0,
    wildcardCount: segments.filter((s) => s.kind === "wildcard").length,
    fits: (path) => align(path) !== undefined,
    match(path) {
      const raw = matchRaw(path);
      if (raw === undefined) return undefined;
      const params: Record<string, string> = {};
      for (const v of variables) params[v.fieldPath] = decodeVariable(v, raw[v.fieldPath] ?? "");
      return params;
    },
    matchRaw,
  };

  function matchRaw(path: readonly string[]): Record<string, string> | undefined {
    const aligned = align(path);
    if (aligned === undefined) return undefined;
    const raw: Record<string, string> = {};
    for (const v of variables) {
      const first = boundary(v.start, aligned.extra);
      const past = boundary(v.end, aligned.extra);
      const pieces = path.slice(first, past);
      if (past === path.length) pieces[pieces.length - 1] = aligned.last;
      raw[v.fieldPath] = pieces.join("/");
    }
    return raw;
  }
}
