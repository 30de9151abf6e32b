/**
 * The odd values the fuzzer feeds every input position: uids and path segments, strings, JSON of
 * the wrong type, shape and size, and bytes that are not UTF-8. Each is a fast-check arbitrary so
 * one seed reproduces a whole run.
 */
import fc from "fast-check";

/** Uids the world really holds, so some hostile requests reach the code behind the uid checks. */
export interface KnownUids {
  org: string;
  group: string;
  identity: string;
  binding: string;
  role: string;
  /** A built-in role's uid. */
  builtinRole: string;
}

const HEX = "0123456789abcdef";

/** A string of lowercase hex characters of a given length. */
function hex(length: number): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...HEX), minLength: length, maxLength: length });
}

/** Percent-encoded and raw troublemakers for a path segment. */
const ODD_SEGMENTS = [
  "..",
  ".",
  "%2e%2e",
  "%2F",
  "%2f..%2f",
  "%00",
  "%",
  "%G0",
  "%FF",
  "%C3%28",
  "%E2%82",
  "%ED%A0%80",
  "a%20b",
  "~",
  "*",
  "**",
  "%252F",
  ";",
  ":",
  ":verb",
  "%3A",
  "%3F",
  "%23",
  "\u00e9",
  "%F0%9F%98%80",
  "con",
  "-",
  "%5C",
  "%0D%0A",
  "null",
  "undefined",
];

/** A uid: a real one, a near miss (wrong case, length, depth), or something else entirely. */
export function uidArb(known: KnownUids): fc.Arbitrary<string> {
  const real = fc.constantFrom(known.org, known.group, known.identity, known.binding, known.role, known.builtinRole);
  return fc.oneof(
    { weight: 4, arbitrary: real },
    { weight: 2, arbitrary: hex(40) },
    { weight: 2, arbitrary: fc.tuple(hex(40), fc.array(hex(16), { minLength: 1, maxLength: 4 })).map(([r, c]) => [r, ...c].join("/")) },
    { weight: 1, arbitrary: real.map((u) => u.toUpperCase()) },
    { weight: 1, arbitrary: fc.tuple(real, fc.integer({ min: 1, max: 39 })).map(([u, n]) => u.slice(0, n)) },
    { weight: 1, arbitrary: real.map((u) => `${u}/${"0".repeat(16)}`) },
    { weight: 1, arbitrary: fc.tuple(real, fc.constantFrom(...ODD_SEGMENTS)).map(([u, s]) => `${u}/${s}`) },
    { weight: 2, arbitrary: fc.constantFrom(...ODD_SEGMENTS) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 9_000 }).map((n) => "a".repeat(n)) },
    {
      weight: 1,
      arbitrary: fc
        .string({ unit: "binary", minLength: 1, maxLength: 30 })
        .map((s) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")),
    },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }) },
  );
}

/** A string for a text field: plausible, odd, huge, or full of control characters. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 20 }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "a",
      "ok name",
      "UPPER",
      "x".repeat(513),
      "\u0000",
      "\ud800",
      "\u202e",
      "😀",
      "a\nb",
      "../etc/passwd",
      "' or 1=1 --",
      "%s%n",
      "<script>",
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  // Past every length limit (names 256, descriptions 512); whole bodies past the size limit are hugeJson's.
  { weight: 1, arbitrary: fc.integer({ min: 257, max: 3_000 }).map((n) => "é".repeat(n)) },
);

/** A number where JSON allows one: integers, floats, huge, negative, and their string forms. */
export const oddNumber: fc.Arbitrary<number | string> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1e308, -1e308, 2 ** 53 + 1, 2 ** 63, 4294967296, 0.5, -0),
  fc.constantFrom("1", "-1", "1e3", "0x10", "NaN", "Infinity", "99999999999999999999999", "", " 1", "1.0"),
);

/** JSON values of any type, depth-limited, to put where another type belongs. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, "", 0, [null], { "@type": "x" }, { __proto__: { a: 1 } }) },
);

/** Valid JSON text, nested deep enough to trouble a recursive reader. */
export const deepJson: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      { weight: 9, arbitrary: fc.integer({ min: 30, max: 2_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 2_000, max: 100_000 }) },
    ),
    fc.constantFrom("[", '{"a":'),
  )
  .map(([depth, open]) => open.repeat(depth) + "1" + (open === "[" ? "]" : "}").repeat(depth));

/** A large JSON document: a huge string, a long array, or many keys. */
export const hugeJson: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 100_000, max: 2_000_000 }).map((n) => JSON.stringify({ name: "x".repeat(n) })),
  fc.integer({ min: 10_000, max: 200_000 }).map((n) => `[${"0,".repeat(n)}0]`),
  fc.integer({ min: 1_000, max: 50_000 }).map((n) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(",")}}`),
);

/** Bytes that are not well-formed UTF-8 (inside an otherwise plausible JSON body). */
export const badUtf8: fc.Arbitrary<Buffer> = fc
  .tuple(
    fc.constantFrom([0xff], [0xc3, 0x28], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf], [0x00]),
    fc.boolean(),
  )
  .map(([bytes, inString]) =>
    inString
      ? Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bytes), Buffer.from('"}')])
      : Buffer.concat([Buffer.from("{"), Buffer.from(bytes), Buffer.from("}")]),
  );

/** Text that is almost JSON. */
export const brokenJson: fc.Arbitrary<string> = fc.constantFrom(
  "",
  "{",
  "}",
  "[",
  "null",
  "true",
  "1",
  '"x"',
  "{'a':1}",
  '{"a":1,}',
  '{"a":}',
  "{a:1}",
  '{"name":"x"}garbage',
  "\u0000",
  "NaN",
  '{"name":"x","name":"y"}',
  "[]",
);
