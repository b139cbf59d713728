import { randomBytes } from "node:crypto";
import type { Config } from "../../config.js";
import { S3Storage } from "./s3-storage.js";
import { checkKey, type Storage } from "./storage-key.js";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

export { checkKey, type Storage } from "./storage-key.js";

/** Files under a directory. Writes go to a temporary file first and are renamed into place, so readers never see half a file. */
export class LocalDiskStorage implements Storage {
  constructor(readonly root: string) {}

  private path(key: string): string {
    checkKey(key);
    return join(this.root, key);
  }

  async put(key: string, data: Buffer): Promise<void> {
    const file = this.path(key);
    if (await this.has(key)) return;
    await mkdir(dirname(file), { recursive: true });
    const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(tmp, data);
    await rename(tmp, file);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      return (await stat(this.path(key))).isFile();
    } catch {
      return false;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}

const stores = new Map<string, Storage>();

/**
 * The platform's media storage: DATA_DIR/media, or the configured S3 bucket. One instance per place, so its
 * S3 client (and connection pool) is shared by every request.
 */
export function mediaStorage(config: Pick<Config, "dataDir" | "media">): Storage {
  const media = config.media;
  const place = media.store === "s3" ? `s3:${media.endpoint ?? ""}:${media.bucket}` : `local:${config.dataDir}`;
  let store = stores.get(place);
  if (!store) {
    store = media.store === "s3" ? new S3Storage(media) : new LocalDiskStorage(join(config.dataDir, "media"));
    stores.set(place, store);
  }
  return store;
}
