import type { Kysely } from "kysely";
import { Type } from "typebox";
import type { DB } from "../../core/db/schema.js";
import { notFound } from "../../core/http/errors.js";
import { parseId } from "../../core/http/ids.js";
import { photoKey } from "../../core/media/images.js";
import { mediaStorage } from "../../core/media/storage.js";
import type { StaffScope } from "../../core/staff/guard.js";
import { isPublic } from "../../core/visibility.js";

/**
 * Where staff see a report's photo, whatever its visibility (hidden and removed photos, and the photos of hidden
 * reports, are 404 at the public /photos address). Behind the staff console's guard; never cached by others.
 */
export function staffPhotoUrl(reference: string, photoId: number, size: "full" | "thumb"): string {
  return `/admin/reports/${reference}/photos/${photoId}${size === "thumb" ? "-thumb" : ""}.jpg`;
}

/** A report photo as staff see it: both sizes' staff addresses, its shape and visibility. */
export interface StaffPhoto {
  id: number;
  visibility: "public" | "hidden" | "removed";
  full: string;
  thumb: string;
  width: number;
  height: number;
}

/** Every photo of a report (by id), in the reporter's order, with its staff addresses. */
export async function staffPhotos(db: Kysely<DB>, reportId: number, reference: string): Promise<StaffPhoto[]> {
  const rows = await db
    .selectFrom("report_photos")
    .select(["id", "width", "height", "visibility"])
    .where("report_id", "=", reportId)
    .orderBy("position")
    .orderBy("id")
    .execute();
  return rows.map((p) => ({
    id: p.id,
    visibility: p.visibility,
    full: staffPhotoUrl(reference, p.id, "full"),
    thumb: staffPhotoUrl(reference, p.id, "thumb"),
    width: p.width,
    height: p.height,
  }));
}

/** A size to show a derived thumbnail at, its longest side `longest` CSS pixels (its shape kept). */
export function shownSize(p: { width: number; height: number }, longest: number) {
  const scale = longest / Math.max(p.width, p.height, 1);
  return { width: Math.max(1, Math.round(p.width * scale)), height: Math.max(1, Math.round(p.height * scale)) };
}

const FILE = /^([0-9]{1,20})(-thumb)?\.jpg$/;

/** GET /admin/reports/{reference}/photos/{id}.jpg and {id}-thumb.jpg: a report's photo for staff. */
export function staffPhotoRoutes(scope: StaffScope): void {
  const storage = mediaStorage(scope.civic.config);
  scope.get(
    "/reports/:reference/photos/:file",
    {
      schema: {
        hide: true,
        params: Type.Object({ reference: Type.String({ maxLength: 40 }), file: Type.String({ maxLength: 40 }) }),
      },
    },
    async (request, reply) => {
      const match = FILE.exec(request.params.file);
      const id = match ? parseId(match[1]) : null;
      if (!match || id === null) throw notFound("There is no photo at this address.");
      const photo = await scope.civic.database.db
        .selectFrom("report_photos")
        .innerJoin("reports", "reports.id", "report_photos.report_id")
        .select(["report_photos.hash", "report_photos.visibility", "reports.visibility as reportVisibility"])
        .where("report_photos.id", "=", id)
        .where("reports.reference", "=", request.params.reference)
        .executeTakeFirst();
      if (!photo) throw notFound("There is no photo at this address.");
      const data = await storage.get(photoKey(photo.hash, match[2] ? "thumb" : "full"));
      if (!data) throw notFound("There is no photo at this address.");
      const shown = isPublic(photo.visibility) && isPublic(photo.reportVisibility);
      return (
        reply
          .header("content-type", "image/jpeg")
          // A hidden photo is kept out of every shared cache and the browser's disk.
          .header("cache-control", shown ? "private, max-age=3600" : "private, no-store")
          .send(data)
      );
    },
  );
}
