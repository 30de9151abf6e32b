/**
 * Advisories as the API shows them, built from the stored OSV document. OSV's names map to the
 * proto's one for one (`severity` to `severities`, `published` to `publishedTime`, ...).
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { AdvisoryRecord } from "../../domain/advisories.js";
import { osvTimeMs, type OsvAffected, type OsvEvent, type OsvSeverity } from "../../domain/osv.js";
import {
  AdvisorySchema,
  AffectedSchema,
  EventSchema,
  Range_Type,
  RangeSchema,
  Reference_Type,
  ReferenceSchema,
  Severity_Type,
  SeveritySchema,
  type Advisory,
  type Affected,
  type Event,
  type Severity,
} from "../../gen/arbor/vulnerabilities/v2beta1/advisories_pb.js";

/** The advisory resource as the API shows it. */
export function advisoryMessage(r: AdvisoryRecord): Advisory {
  const d = r.document;
  return create(AdvisorySchema, {
    uid: r.uid,
    advisoryId: r.uid,
    aliases: d.aliases ?? [],
    related: d.related ?? [],
    summary: d.summary ?? "",
    details: d.details ?? "",
    severities: severities(d.severity),
    affected: (d.affected ?? []).map(affectedMessage),
    references: (d.references ?? []).map((ref) => create(ReferenceSchema, { type: enumValue(Reference_Type, ref.type), url: ref.url })),
    ...(d.published !== undefined && { publishedTime: timestampFromMs(osvTimeMs(d.published)) }),
    modifiedTime: timestampFromMs(r.modifiedTime),
    ...(d.withdrawn !== undefined && { withdrawnTime: timestampFromMs(osvTimeMs(d.withdrawn)) }),
    schemaVersion: d.schema_version ?? "",
    createTime: timestampFromMs(r.createTime),
  });
}

function affectedMessage(a: OsvAffected): Affected {
  return create(AffectedSchema, {
    ecosystem: a.package?.ecosystem ?? "",
    name: a.package?.name ?? "",
    purl: a.package?.purl ?? "",
    ranges: (a.ranges ?? []).map((r) =>
      create(RangeSchema, { type: enumValue(Range_Type, r.type), repo: r.repo ?? "", events: r.events.map(eventMessage) }),
    ),
    versions: a.versions ?? [],
    severities: severities(a.severity),
  });
}

/** OSV severities as the API shows them. */
export function severities(list: readonly OsvSeverity[] | null | undefined): Severity[] {
  // OSV spells Ubuntu's type in mixed case; the enum's names are upper case.
  return (list ?? []).map((s) => create(SeveritySchema, { type: enumValue(Severity_Type, s.type.toUpperCase()), score: s.score }));
}

function eventMessage(e: OsvEvent): Event {
  if ("introduced" in e) return create(EventSchema, { event: { case: "introduced", value: e.introduced } });
  if ("fixed" in e) return create(EventSchema, { event: { case: "fixed", value: e.fixed } });
  if ("last_affected" in e) return create(EventSchema, { event: { case: "lastAffected", value: e.last_affected } });
  return create(EventSchema, { event: { case: "limit", value: e.limit } });
}

/** The value of a generated enum with this name; UNSPECIFIED (0) for a name it does not have. */
function enumValue<E extends Record<string, string | number>>(enumObject: E, name: string): E[keyof E] {
  const value = enumObject[name];
  return (typeof value === "number" ? value : 0) as E[keyof E];
}
