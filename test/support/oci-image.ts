/**
 * A small OCI image layout on disk (oci-layout, index.json, blobs), built byte by byte: one
 * gzipped tar layer holding one file, an image config and a manifest, tagged in the index. What
 * `skopeo copy oci:DIR:TAG ...` reads.
 */
import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/** The image written, with the digest of its manifest. */
export interface OciImage {
  dir: string;
  tag: string;
  manifestDigest: string;
}

/** Writes an image layout to dir whose one layer holds a file named name with content. */
export async function writeOciImage(dir: string, tag: string, file: { name: string; content: string }): Promise<OciImage> {
  await mkdir(join(dir, "blobs", "sha256"), { recursive: true });
  const blob = async (bytes: Buffer, mediaType: string) => {
    const hex = createHash("sha256").update(bytes).digest("hex");
    await writeFile(join(dir, "blobs", "sha256", hex), bytes);
    return { mediaType, digest: `sha256:${hex}`, size: bytes.length };
  };
  const tar = tarOf(file.name, Buffer.from(file.content));
  const layer = await blob(gzipSync(tar), "application/vnd.oci.image.layer.v1.tar+gzip");
  const diffId = `sha256:${createHash("sha256").update(tar).digest("hex")}`;
  const config = await blob(
    Buffer.from(JSON.stringify({ architecture: "amd64", os: "linux", config: {}, rootfs: { type: "layers", diff_ids: [diffId] } })),
    "application/vnd.oci.image.config.v1+json",
  );
  const manifest = await blob(
    Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json", config, layers: [layer] })),
    "application/vnd.oci.image.manifest.v1+json",
  );
  const index = { schemaVersion: 2, manifests: [{ ...manifest, annotations: { "org.opencontainers.image.ref.name": tag } }] };
  await writeFile(join(dir, "index.json"), JSON.stringify(index));
  await writeFile(join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  return { dir, tag, manifestDigest: manifest.digest };
}

/** A ustar archive of one regular file. */
function tarOf(name: string, content: Buffer): Buffer {
  const header = Buffer.alloc(512);
  const field = (offset: number, length: number, value: string) => header.write(value, offset, length, "ascii");
  const octal = (offset: number, length: number, n: number) => field(offset, length, `${n.toString(8).padStart(length - 1, "0")}\0`);
  field(0, 100, name);
  octal(100, 8, 0o644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, content.length);
  octal(136, 12, 1_700_000_000);
  field(148, 8, " ".repeat(8));
  field(156, 1, "0");
  field(257, 8, "ustar\x0000");
  let sum = 0;
  for (const byte of header) sum += byte;
  field(148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  const padding = Buffer.alloc((512 - (content.length % 512)) % 512);
  return Buffer.concat([header, content, padding, Buffer.alloc(1024)]);
}
