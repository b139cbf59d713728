import { createHmac, timingSafeEqual } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";
import type { Job } from "../core/jobs/runner.js";
import { ImageError, type PhotoInput, photoKey, photoSize, photoSource, processPhoto } from "../core/media/images.js";
import type { Storage } from "../core/media/storage.js";

/**
 * Photos survive a form that comes back with problems: they are cleaned and stored at once, and the form carries a
 * signed token per photo (`kept_photo`), so the person does not have to choose them again. The signature stops a
 * form from attaching any other stored photo by its hash. Each time a form carries a kept photo, `kept_photos`
 * notes it; a photo no form has carried for a day, and no report uses, is deleted by `keptPhotoCleanupJob`.
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

/**
 * Cleans and stores newly uploaded photos so the re-rendered form can keep them (unreadable ones are left out), and
 * notes every photo the form will carry, earlier ones included, as kept now. Returns the earlier and new photos.
 */
export async function keepPhotos(
  storage: Storage,
  secret: string,
  record: { db: Kysely<DB>; now: Date },
  earlier: KeptPhoto[],
  uploads: PhotoInput[],
  maxBytes: number,
): Promise<KeptPhoto[]> {
  const kept: KeptPhoto[] = [...earlier];
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
  if (kept.length > 0) {
    const keptAt = record.now.toISOString();
    await record.db
      .insertInto("kept_photos")
      .values(kept.map((k) => ({ hash: k.hash, kept_at: keptAt })))
      .execute();
  }
  return kept;
}

/** A kept photo is deleted once no form has carried it for this long (form tokens live as long). */
export const KEPT_PHOTO_MAX_AGE_MS = 24 * 60 * 60 * 1000;
const CLEANUP_BATCH = 200;
const CLEANUP_MAX_BATCHES = 500;

/**
 * Deletes photos kept for forms that were never sent: every photo last kept more than a day before `now` loses
 * its files, unless a report or an update waiting for its link uses the same photo (photos are stored by content
 * hash), and its `kept_photos` rows.
 * Works in batches and stops early when `signal` is aborted. Returns how many photos were deleted.
 */
export async function deleteAbandonedKeptPhotos(
  db: Kysely<DB>,
  storage: Storage,
  now: Date,
  signal?: AbortSignal,
): Promise<{ photosDeleted: number; keptRowsDeleted: number }> {
  const cutoff = new Date(now.getTime() - KEPT_PHOTO_MAX_AGE_MS).toISOString();
  let photosDeleted = 0;
  let keptRowsDeleted = 0;
  for (let batch = 0; batch < CLEANUP_MAX_BATCHES && !signal?.aborted; batch++) {
    const stale = await db
      .selectFrom("kept_photos")
      .select("hash")
      .groupBy("hash")
      .having((eb) => eb.fn.max("kept_at"), "<", cutoff)
      .limit(CLEANUP_BATCH)
      .execute();
    for (const { hash } of stale) {
      const used = await db.selectFrom("report_photos").select("id").where("hash", "=", hash).limit(1).execute();
      // A resident's update waiting for its emailed link carries its photo as a form does (resident-updates.ts):
      // kept for another day, then deleted once the retention job has deleted the update never confirmed.
      const waiting = await db
        .selectFrom("report_update_requests")
        .select("id")
        .where("photo_hash", "=", hash)
        .limit(1)
        .execute();
      if (waiting.length > 0) {
        await db.updateTable("kept_photos").set({ kept_at: now.toISOString() }).where("hash", "=", hash).execute();
        continue;
      }
      if (used.length === 0) {
        await storage.delete(photoKey(hash, "full"));
        await storage.delete(photoKey(hash, "thumb"));
        photosDeleted++;
      }
      const removed = await db
        .deleteFrom("kept_photos")
        .where("hash", "=", hash)
        .where("kept_at", "<", cutoff)
        .executeTakeFirst();
      keptRowsDeleted += Number(removed.numDeletedRows);
    }
    if (stale.length < CLEANUP_BATCH) break;
  }
  return { photosDeleted, keptRowsDeleted };
}

/** The hourly job that deletes photos kept for forms that were never sent. */
export function keptPhotoCleanupJob(db: Kysely<DB>, storage: Storage): Job {
  return {
    name: "kept-photo-cleanup",
    intervalMs: 60 * 60_000,
    run: ({ now, signal }) => deleteAbandonedKeptPhotos(db, storage, now, signal),
  };
}
