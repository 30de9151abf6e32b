/**
 * Hostile JSON shaped after a request message's descriptor: each field present or not, under its
 * JSON or proto name, holding a value of its own kind (odd) or of another kind entirely. Field
 * masks, page tokens and order_by get values of their own, since those are parsed separately.
 */
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import { anyJson, oddNumber, oddString, uidArb, type KnownUids } from "./hostile-values.js";

/** Odd update masks: real paths, output-only ones, unknown ones, bad syntax. */
export const oddMask: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "*",
    "",
    ",",
    "name",
    "description",
    "name,description",
    "uid",
    "create_time",
    "createTime",
    "update_time",
    "nonexistent",
    "name..description",
    "name,",
    ".name",
    "claim_match",
    "claim_match.subject",
    "claimMatch.subjectPattern",
    "claim_match.nope",
    "static_keys.issuer_keys",
    "*,name",
    "name,*",
    "identity.name",
    "oidc.client_secret",
    "NAME",
    "name name",
    "a.b.c.d.e.f",
  ),
  fc.array(fc.string({ maxLength: 12 }), { maxLength: 5 }).map((a) => a.join(",")),
);

/** Page tokens: forged, truncated, mangled real-looking ones, and random bytes. */
export function oddPageToken(real: readonly string[]): fc.Arbitrary<string> {
  const mangle = (t: string, i: number, c: string) => (t.length === 0 ? c : t.slice(0, i % t.length) + c + t.slice((i % t.length) + 1));
  return fc.oneof(
    fc.constantFrom("", "x", "AAAA", "====", "%00", "a".repeat(5000), "eyJhbGciOiJub25lIn0.e30."),
    fc.base64String({ maxLength: 200 }),
    fc.uint8Array({ maxLength: 120 }).map((b) => Buffer.from(b).toString("base64url")),
    ...(real.length > 0
      ? [
          fc.tuple(fc.constantFrom(...real), fc.nat(), fc.constantFrom("A", "_", "-", "0", "%", "=")).map(([t, i, c]) => mangle(t, i, c)),
          fc.tuple(fc.constantFrom(...real), fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1))),
          fc.constantFrom(...real),
        ]
      : []),
  );
}

/** Odd order_by values. */
export const oddOrderBy: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "name",
    "name desc",
    "name asc",
    "create_time desc,uid",
    "createTime",
    "name desc desc",
    "uid;drop table groups",
    "",
    ",",
    " ",
    "name,name",
    "NAME",
    "name sideways",
    "update_time desc, name asc",
  ),
  fc.string({ maxLength: 30 }),
);

/** A value of field's own kind (odd), or of another kind. */
function fieldValue(field: DescField, known: KnownUids, depth: number): fc.Arbitrary<unknown> {
  const own = ownValue(field, known, depth);
  return fc.oneof({ weight: 4, arbitrary: own }, { weight: 1, arbitrary: anyJson });
}

function ownValue(field: DescField, known: KnownUids, depth: number): fc.Arbitrary<unknown> {
  switch (field.fieldKind) {
    case "scalar":
      return scalarValue(field.scalar, field.name, known);
    case "enum":
      return fc.oneof(fc.constantFrom(...field.enum.values.map((v) => v.name)), fc.integer({ min: -5, max: 1000 }), oddString);
    case "message":
      return messageValue(field.message, known, depth + 1);
    case "list":
      return fc.array(
        field.listKind === "scalar"
          ? scalarValue(field.scalar, field.name, known)
          : field.listKind === "enum"
            ? fc.oneof(oddString, fc.integer())
            : depth < 3
              ? messageValue(field.message, known, depth + 1)
              : anyJson,
        { maxLength: 4 },
      );
    case "map":
      return fc.dictionary(oddString, field.mapKind === "scalar" ? scalarValue(field.scalar, field.name, known) : anyJson, { maxKeys: 4 });
  }
}

function scalarValue(scalar: ScalarType, name: string, known: KnownUids): fc.Arbitrary<unknown> {
  if (scalar === ScalarType.STRING) {
    if (/uid|parent|group|role|identity/.test(name)) return fc.oneof(uidArb(known), oddString);
    return oddString;
  }
  if (scalar === ScalarType.BOOL) return fc.oneof(fc.boolean(), fc.constantFrom("true", "1", 0, "yes"));
  if (scalar === ScalarType.BYTES) return fc.oneof(fc.base64String({ maxLength: 40 }), oddString);
  return oddNumber;
}

/** JSON for a message: well-known types by their JSON forms, others field by field. */
export function messageValue(desc: DescMessage, known: KnownUids, depth = 0): fc.Arbitrary<unknown> {
  switch (desc.typeName) {
    case "google.protobuf.FieldMask":
      return oddMask;
    case "google.protobuf.Timestamp":
      return fc.oneof(
        fc.constantFrom(
          "2026-01-01T00:00:00Z",
          "2026-13-01T00:00:00Z",
          "0000-01-01T00:00:00Z",
          "9999-12-31T23:59:59.999999999Z",
          "yesterday",
          "",
        ),
        oddNumber,
      );
    case "google.protobuf.Duration":
      return fc.constantFrom("1s", "-1s", "1.5s", "315576000001s", "s", "", 5);
    case "google.protobuf.Struct":
    case "google.protobuf.Value":
    case "google.protobuf.ListValue":
      return anyJson;
  }
  if (depth > 3 || desc.fields.length === 0) return fc.constant({});
  const entries = desc.fields.map((f) =>
    fc.option(fc.tuple(fc.constantFrom(f.jsonName, f.name), fieldValue(f, known, depth)), { freq: 2, nil: undefined }),
  );
  const extra = fc.option(fc.tuple(fc.constantFrom("unknownField", "@type", "__proto__", "constructor", ""), anyJson), {
    freq: 6,
    nil: undefined,
  });
  return fc.tuple(fc.tuple(...entries), extra).map(([fields, more]) => {
    const out: Record<string, unknown> = {};
    for (const e of [...fields, more])
      if (e !== undefined) Object.defineProperty(out, e[0], { value: e[1], enumerable: true, writable: true, configurable: true });
    return out;
  });
}
