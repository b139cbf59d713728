import { createHmac, timingSafeEqual } from "node:crypto";
import { ImageError, type PhotoInput, photoKey, photoSize, photoSource, processPhoto } from "../core/media/images.js";
import type { Storage } from "../core/media/storage.js";

/**
 * Photos survive a form that comes back with problems: they are cleaned and stored at once, and the form carries a
 * signed token per photo (`kept_photo`), so the person does not have to choose them again. The signature stops a
 * form from attaching any other stored photo by its hash.
 */
export interface KeptPhoto {
  token: string;
  hash: string;
  name: string;
}

const HASH = /^[0-9a-f]{64}$/;

function mac(secret: string, hash: string, name: string): string {
  return createHmac("sha256", secret).update(`kept-photo:${hash}:${name}`).digest("base64url");
}

export function keptPhotoToken(secret: string, hash: string, name: string): string {
  const safeName = name.slice(0, 80);
  return `${hash}.${Buffer.from(safeName).toString("base64url")}.${mac(secret, hash, safeName)}`;
}

/** The photo a token names, or null when the token is malformed or not signed by us. */
export function readKeptPhotoToken(secret: string, token: string): KeptPhoto | null {
  const [hash, encodedName, given, extra] = token.split(".");
  if (!hash || encodedName === undefined || !given || extra !== undefined || !HASH.test(hash)) return null;
  const name = Buffer.from(encodedName, "base64url").toString("utf8");
  const expected = Buffer.from(mac(secret, hash, name));
  const actual = Buffer.from(given);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
  return { token, hash, name };
}

/** Loads kept photos named by valid tokens (unknown or forged ones are dropped). */
export async function loadKeptPhotos(
  storage: Storage,
  secret: string,
  tokens: string[],
): Promise<{ kept: KeptPhoto[]; photos: { data: Buffer; filename: string }[] }> {
  const kept: KeptPhoto[] = [];
  const photos: { data: Buffer; filename: string }[] = [];
  for (const token of tokens.slice(0, 20)) {
    const photo = readKeptPhotoToken(secret, token);
    if (!photo || kept.some((k) => k.hash === photo.hash)) continue;
    const data = await storage.get(photoKey(photo.hash, "full"));
    if (!data) continue;
    kept.push(photo);
    photos.push({ data, filename: photo.name });
  }
  return { kept, photos };
}

/** Cleans and stores newly uploaded photos so the re-rendered form can keep them; unreadable ones are left out. */
export async function keepNewPhotos(
  storage: Storage,
  secret: string,
  uploads: PhotoInput[],
  maxBytes: number,
): Promise<KeptPhoto[]> {
  const kept: KeptPhoto[] = [];
  for (const upload of uploads) {
    if (photoSize(upload) > maxBytes) continue;
    const filename = upload.filename ?? "";
    try {
      const processed = await processPhoto(photoSource(upload));
      await storage.put(photoKey(processed.hash, "full"), processed.full);
      await storage.put(photoKey(processed.hash, "thumb"), processed.thumb);
      kept.push({
        token: keptPhotoToken(secret, processed.hash, filename),
        hash: processed.hash,
        name: filename,
      });
    } catch (error) {
      if (!(error instanceof ImageError)) throw error;
    }
  }
  return kept;
}
