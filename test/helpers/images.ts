import sharp from "sharp";

/**
 * Test fixtures: a phone-like JPEG that carries an EXIF orientation (rotated 90°), a camera make and a GPS position,
 * the things that must not survive processing.
 */
export async function jpegWithGps(width = 800, height = 600, colour = "#3366aa"): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .withMetadata({ orientation: 6 })
    .withExifMerge({
      IFD0: { Make: "SecretCam", Model: "Spy 3000" },
      IFD3: {
        GPSLatitudeRef: "N",
        GPSLatitude: "50/1 59/1 1234/100",
        GPSLongitudeRef: "W",
        GPSLongitude: "2/1 2/1 3/1",
      },
    })
    .jpeg()
    .toBuffer();
}

/** True when an EXIF block holds a GPS IFD pointer (tag 0x8825), in either byte order. */
export function hasGpsTag(exif: Buffer | undefined): boolean {
  if (!exif) return false;
  return exif.includes(Buffer.from([0x25, 0x88])) || exif.includes(Buffer.from([0x88, 0x25]));
}

export async function pngImage(width = 300, height = 200): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 0.5 } } })
    .png()
    .toBuffer();
}
