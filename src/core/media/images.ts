import { createHash } from "node:crypto";
import sharp from "sharp";

/** Longest side of the stored full-size photo and of its thumbnail, in pixels. */
export const FULL_SIZE = 1600;
export const THUMB_SIZE = 400;
/** Refuse decompression bombs: larger than ~50 megapixels is not a phone photo. */
const MAX_INPUT_PIXELS = 50_000_000;

/** The formats people can upload (HEIC only where this build of sharp can decode it). */
const ACCEPTED_FORMATS = new Set(["jpeg", "png", "webp", "heif", "avif"]);

export interface ProcessedImage {
  /** sha256 (hex) of the full-size JPEG: its storage identity. */
  hash: string;
  full: Buffer;
  thumb: Buffer;
  width: number;
  height: number;
  contentType: "image/jpeg";
}

/** An upload that is not an image we can read. The message is safe to show. */
export class ImageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImageError";
  }
}

/** A photo to process: its bytes, or the path of a file (an upload in the temporary store), which sharp reads itself. */
export type PhotoSource = Buffer | { path: string };

/** An uploaded photo: its bytes (e.g. a kept photo from storage), or a file in the upload store with its size. */
export type PhotoInput = { filename?: string } & ({ data: Buffer } | { path: string; size: number });

export function photoSize(photo: PhotoInput): number {
  return "data" in photo ? photo.data.length : photo.size;
}

export function photoSource(photo: PhotoInput): PhotoSource {
  return "data" in photo ? photo.data : { path: photo.path };
}

/**
 * Decodes an uploaded photo (which proves it is a real image), turns it upright from its EXIF orientation, drops
 * ALL metadata (EXIF incl. GPS, XMP, IPTC, ICC comments) by re-encoding without it, and makes a full-size JPEG and a
 * thumbnail. The hash of the full-size JPEG names it in storage.
 */
export async function processPhoto(source: PhotoSource): Promise<ProcessedImage> {
  const data = Buffer.isBuffer(source) ? source : source.path;
  let format: string | undefined;
  try {
    const meta = await sharp(data, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
    format = meta.format;
  } catch {
    throw new ImageError("is not an image we can read (use a JPEG, PNG, WebP or HEIC photo)");
  }
  if (!format || !ACCEPTED_FORMATS.has(format)) {
    throw new ImageError("must be a JPEG, PNG, WebP or HEIC photo");
  }
  try {
    // .rotate() with no angle applies the EXIF orientation; sharp writes no metadata unless asked to.
    const upright = sharp(data, { limitInputPixels: MAX_INPUT_PIXELS, failOn: "error" })
      .rotate()
      .flatten({ background: "#ffffff" });
    const { data: full, info } = await upright
      .clone()
      .resize({ width: FULL_SIZE, height: FULL_SIZE, fit: "inside", withoutEnlargement: true })
      .jpeg({ quality: 82, mozjpeg: true })
      .toBuffer({ resolveWithObject: true });
    const thumb = await upright
      .clone()
      .resize({ width: THUMB_SIZE, height: THUMB_SIZE, fit: "inside", withoutEnlargement: true })
      .jpeg({ quality: 78, mozjpeg: true })
      .toBuffer();
    const hash = createHash("sha256").update(full).digest("hex");
    return { hash, full, thumb, width: info.width, height: info.height, contentType: "image/jpeg" };
  } catch {
    throw new ImageError(
      format === "heif"
        ? "is a HEIC photo that this server cannot read; please choose it as a JPEG instead"
        : "could not be read as an image; it may be damaged",
    );
  }
}

/** Storage keys of a photo's two sizes. */
export function photoKey(hash: string, size: "full" | "thumb"): string {
  return `photos/${hash.slice(0, 2)}/${hash}${size === "thumb" ? "-thumb" : ""}.jpg`;
}
