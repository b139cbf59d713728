import { Readable } from "node:stream";
import { Zip, ZipDeflate, ZipPassThrough } from "fflate";

/** One file of a streamed zip archive. Its bytes are read only when the archive reaches it. */
export interface ZipEntry {
  /** Path inside the archive, e.g. "photos/AB12-CD34-1.jpg". */
  path: string;
  /** The file's bytes, or null to leave it out (e.g. a photo no longer in the media store). */
  read(): Promise<Uint8Array | null>;
  /** Deflate it (text); false stores it as is (JPEGs and other already-compressed files). */
  compress: boolean;
}

/** Bytes handed to fflate at a time; the event loop gets a turn between two. */
const CHUNK = 64 * 1024;

/** File names whose contents are worth compressing; everything else (photos) is stored as is. */
export function worthCompressing(path: string): boolean {
  return /\.(json|txt|csv|html|xml)$/i.test(path);
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A zip archive produced as it is read, for answers that can grow large (the personal-data download):
 * - one entry at a time: an entry's `read()` is called only once the previous one is written, so at most one file
 *   (plus a chunk of output) is in memory whatever the size of the archive;
 * - back-pressure: the next chunk is produced only when the reader (an HTTP response piped from this stream) asks
 *   for it, so a slow client slows the reading, it does not fill memory;
 * - no long work on the event loop: data goes to fflate in 64 KB chunks with a turn of the event loop between two,
 *   JPEGs are stored without compression (they would not shrink), text is deflated chunk by chunk.
 * Entries use data descriptors (sizes after the data), which every unzip tool reads. A client that goes away
 * destroys the stream, which stops the reading at the next chunk.
 */
export function zipStream(entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>): Readable {
  return Readable.from(zipChunks(entries), { objectMode: false, highWaterMark: CHUNK });
}

async function* zipChunks(entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>): AsyncGenerator<Buffer> {
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, data) => {
    if (error) failure = error;
    else out.push(data);
  });
  function* flush(): Generator<Buffer> {
    if (failure) throw failure;
    while (out.length > 0) {
      const data = out.shift()!;
      if (data.length > 0) yield Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    }
  }
  for await (const entry of entries) {
    const data = await entry.read();
    if (!data) continue;
    const file = entry.compress ? new ZipDeflate(entry.path, { level: 6 }) : new ZipPassThrough(entry.path);
    zip.add(file);
    if (data.length === 0) file.push(new Uint8Array(0), true);
    for (let at = 0; at < data.length; at += CHUNK) {
      file.push(data.subarray(at, at + CHUNK), at + CHUNK >= data.length);
      yield* flush();
      await turn();
    }
    yield* flush();
  }
  zip.end();
  yield* flush();
}

/** The whole archive in memory: for tests and small archives only (the stream is the way for answers). */
export async function zipToBuffer(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}
