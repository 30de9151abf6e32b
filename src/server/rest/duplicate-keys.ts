/**
 * Duplicate object keys in JSON text. JSON.parse keeps the last of two equal keys, so
 * `{"name":"BAD NAME","name":"ok"}` would pass validation as `ok` while a proxy, a log or an
 * audit reader in front of Arbor may take the first: such a body is refused instead. A reviver
 * cannot see duplicates (it runs after they are merged), hence this scan of the raw text.
 * (Connect's JSON goes through protobuf-es's fromJsonString, which refuses duplicates itself but
 * keeps its scanner private and names no field path; REST parses with JSON.parse to map bodies.)
 *
 * Run only on text JSON.parse accepted, so the scanner may assume well-formed JSON. One pass:
 * each character is looked at once and each key stored once in the set of its object, so the
 * cost is linear in the body's size (itself bounded by ARBOR_MAX_BODY_BYTES).
 */

/** The path of the first key given twice in one object (`name`, `claimMatch.claims["a b"]`, `items[2].name`), or undefined. */
export function findDuplicateKey(text: string): string | undefined {
  const frames: Frame[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const top = frames.at(-1);
      if (top?.keys !== undefined && top.expectKey) {
        const key = decodeKey(text.slice(i, end));
        if (top.keys.has(key)) return pathOf(frames, key);
        top.keys.add(key);
        top.current = key;
        top.expectKey = false;
      }
      i = end;
      continue;
    }
    if (c === OPEN_OBJECT) frames.push({ keys: new Set(), expectKey: true, current: "", index: 0 });
    else if (c === OPEN_ARRAY) frames.push({ keys: undefined, expectKey: false, current: "", index: 0 });
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) frames.pop();
    else if (c === COMMA) {
      const top = frames.at(-1);
      if (top?.keys !== undefined) top.expectKey = true;
      else if (top !== undefined) top.index++;
    }
    i++;
  }
  return undefined;
}

/** An open object (with the keys seen so far) or array (with the index of the current item). */
interface Frame {
  keys: Set<string> | undefined;
  /** In an object, true between `{` or `,` and the next key. */
  expectKey: boolean;
  /** In an object, the key whose value is being read. */
  current: string;
  /** In an array, the index of the item being read. */
  index: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/** The index just past the string literal starting at the quote at start. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (c === QUOTE || Number.isNaN(c)) return i + 1;
    else i++;
  }
}

/** A key as JSON.parse reads it: `"n\u0061me"` and `"name"` are the same key. */
function decodeKey(literal: string): string {
  return literal.includes("\\") ? (JSON.parse(literal) as string) : literal.slice(1, -1);
}

function pathOf(frames: readonly Frame[], key: string): string {
  let path = "";
  for (const frame of frames.slice(0, -1)) {
    path = frame.keys === undefined ? `${path}[${frame.index}]` : member(path, frame.current);
  }
  return member(path, key);
}

function member(path: string, key: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path === "" ? key : `${path}.${key}`;
}
