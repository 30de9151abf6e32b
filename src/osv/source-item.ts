/**
 * What reading import sources yields: a document's bytes, a document that was passed over, or a
 * source that could not be read at all.
 */

/** One thing met while reading sources. `source` names it: a file path, or `archive!entry`. */
export type SourceItem =
  | { kind: "document"; source: string; bytes: Uint8Array }
  /** A document that could not be taken (too large, unreadable entry): counted as skipped. */
  | { kind: "skipped"; source: string; reason: string }
  /** A path or archive that could not be read at all. */
  | { kind: "unreadable"; source: string; reason: string };

/** The largest document read; real OSV documents stay well under a megabyte. */
export const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;

/** Whether a file or entry name is that of an OSV document (`*.json`). */
export function isDocumentName(name: string): boolean {
  return /\.json$/i.test(name);
}

/** Whether a file name is that of a zip archive of documents. */
export function isArchiveName(name: string): boolean {
  return /\.zip$/i.test(name);
}
