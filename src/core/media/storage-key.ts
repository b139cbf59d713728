/**
 * Where uploaded media is kept, addressed by key (content-hash based, so a key's content never changes): a local
 * directory (the default) or an S3-compatible object store (MEDIA_STORE=s3, s3-storage.ts).
 */
export interface Storage {
  put(key: string, data: Buffer): Promise<void>;
  /** The stored bytes, or null when there is nothing under the key. */
  get(key: string): Promise<Buffer | null>;
  has(key: string): Promise<boolean>;
  /** Removes what is stored under the key; nothing there is not an error. */
  delete(key: string): Promise<void>;
}

const KEY = /^[a-z0-9][a-z0-9/_.-]{0,200}$/;

export function checkKey(key: string): void {
  if (!KEY.test(key) || key.includes("..") || key.includes("//")) throw new Error(`invalid storage key "${key}"`);
}
