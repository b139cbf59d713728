import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { noneMatchSatisfied } from "../core/http/conditional.js";
import { notFound } from "../core/http/errors.js";
import { photoKey } from "../core/media/images.js";
import { mediaStorage } from "../core/media/storage.js";
import { publicPhoto, publicReport } from "../core/visibility.js";

/** The public, absolute URL of a stored report photo. */
export function reportPhotoUrl(baseUrl: string, hash: string, size: "full" | "thumb"): string {
  return `${baseUrl}/photos/${hash}${size === "thumb" ? "-thumb" : ""}.jpg`;
}

const IMMUTABLE = "public, max-age=31536000, immutable";
const FILE = /^([0-9a-f]{64})(-thumb)?\.jpg$/;

/**
 * GET /photos/{hash}.jpg and /photos/{hash}-thumb.jpg: the cleaned photos of public reports. A file name is a
 * content hash, so responses never change and are cached for a year; a matching If-None-Match gets a 304 without
 * the file being read. Hidden or removed photos, photos of hidden or removed reports and unknown hashes are 404.
 */
export async function photoRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const storage = mediaStorage(app.civic.config);
  app.get(
    "/photos/:file",
    {
      // Public JPEGs: the session is never read for them; nothing to compress, and their answers do not vary on
      // Accept-Encoding (core/http/compression.ts).
      config: { session: false, compress: false },
      schema: {
        summary: "A report photo",
        description: "A photo of a public report, without metadata, as JPEG. Append -thumb for the thumbnail.",
        tags: ["Reports"],
        params: Type.Object({ file: Type.String({ maxLength: 100 }) }),
      },
    },
    async (request, reply) => {
      const { file } = request.params;
      const match = FILE.exec(file);
      if (!match) throw notFound("There is no photo at this address.");
      const hash = match[1] as string;
      const size = match[2] ? "thumb" : "full";
      const visible = await app.civic.database.db
        .selectFrom("report_photos")
        .innerJoin("reports", "reports.id", "report_photos.report_id")
        .select("report_photos.id")
        .where("report_photos.hash", "=", hash)
        .where(publicReport)
        .where(publicPhoto)
        .limit(1)
        .executeTakeFirst();
      if (!visible) throw notFound("There is no photo at this address.");
      const etag = `"${hash}${size === "thumb" ? "-t" : ""}"`;
      if (noneMatchSatisfied(request.headers["if-none-match"], etag)) {
        return reply.code(304).header("cache-control", IMMUTABLE).header("etag", etag).send();
      }
      const data = await storage.get(photoKey(hash, size));
      if (!data) throw notFound("There is no photo at this address.");
      return reply
        .header("content-type", "image/jpeg")
        .header("cache-control", IMMUTABLE)
        .header("etag", etag)
        .send(data);
    },
  );
}
