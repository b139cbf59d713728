import sharp from "sharp";
import { type ProcessedImage, processPhoto } from "../core/media/images.js";
import type { DemoPhotoScene } from "./types.js";

/**
 * The demo reports' photos: simple scenes drawn here as SVG (shapes only, no text, so no font decides the pixels),
 * rendered by sharp into a PNG as a phone would send one, then cleaned and sized by the same pipeline as an upload
 * (core/media/images.ts). Nothing is downloaded and nobody's street is shown.
 */
const W = 640;
const H = 480;

const SKY = `<rect width="${W}" height="${H}" fill="#a9cbe8"/><circle cx="560" cy="70" r="34" fill="#f6e7a1"/>`;
const HILLS = `<path d="M0 230 Q160 170 320 215 T640 200 V300 H0 Z" fill="#7fa86a"/>`;

const scenes: Record<DemoPhotoScene, string> = {
  // A road with a kerb and a dark, water-filled hole.
  pothole: `${SKY}${HILLS}
    <rect y="260" width="${W}" height="220" fill="#5f6367"/>
    <rect y="250" width="${W}" height="14" fill="#b9b4aa"/>
    <path d="M0 372 H640" stroke="#f2f2f2" stroke-width="6" stroke-dasharray="60 40"/>
    <ellipse cx="330" cy="400" rx="130" ry="42" fill="#2e3033"/>
    <ellipse cx="318" cy="398" rx="86" ry="22" fill="#6f8fa8" opacity="0.8"/>`,
  // A lane under brown water, with the ford's depth post.
  flood: `${SKY}${HILLS}
    <rect y="280" width="${W}" height="200" fill="#8a7452"/>
    <path d="M0 320 Q80 310 160 322 T320 318 T480 324 T640 316" stroke="#c8b48e" stroke-width="5" fill="none"/>
    <path d="M0 380 Q80 370 160 384 T320 378 T480 386 T640 376" stroke="#c8b48e" stroke-width="5" fill="none"/>
    <rect x="470" y="180" width="16" height="190" fill="#ffffff"/>
    <rect x="470" y="200" width="16" height="20" fill="#d03a2f"/><rect x="470" y="240" width="16" height="20" fill="#d03a2f"/>
    <rect x="60" y="200" width="140" height="90" fill="#3f6b3a"/><rect x="210" y="215" width="90" height="75" fill="#4d7a44"/>`,
  // Black bags and a sofa in the corner of a car park.
  "fly-tipping": `${SKY}
    <rect y="190" width="${W}" height="110" fill="#6a8f58"/>
    <rect y="290" width="${W}" height="190" fill="#8c8c88"/>
    <rect x="60" y="300" width="6" height="180" fill="#ececec"/><rect x="300" y="300" width="6" height="180" fill="#ececec"/>
    <rect x="330" y="300" width="230" height="70" rx="12" fill="#7b4b3a"/>
    <rect x="320" y="350" width="250" height="60" rx="14" fill="#8f5a46"/>
    <circle cx="140" cy="400" r="46" fill="#1d1f22"/><circle cx="210" cy="415" r="40" fill="#26282b"/>
    <circle cx="170" cy="360" r="34" fill="#2c2e31"/><circle cx="250" cy="385" r="30" fill="#1d1f22"/>`,
  // A brick bridge with sprayed tags.
  graffiti: `${SKY}${HILLS}
    <rect x="0" y="140" width="${W}" height="250" fill="#a4553c"/>
    <path d="M0 170 H640 M0 200 H640 M0 230 H640 M0 260 H640" stroke="#8a4633" stroke-width="3"/>
    <path d="M170 390 V300 A150 150 0 0 1 470 300 V390 Z" fill="#3a2a24"/>
    <path d="M40 250 C80 180 110 300 150 220 S210 190 230 260" stroke="#2f7fd0" stroke-width="14" fill="none"/>
    <path d="M480 180 C520 260 560 150 600 240" stroke="#e0378a" stroke-width="12" fill="none"/>
    <rect y="390" width="${W}" height="90" fill="#5f6367"/>`,
};

function svg(scene: DemoPhotoScene): Buffer {
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${scenes[scene]}</svg>`);
}

const made = new Map<DemoPhotoScene, Promise<ProcessedImage>>();

/**
 * The processed photo of a scene (full size and thumbnail, named by its hash). Made once per process: the same
 * scene gives the same bytes, and tests seed many databases.
 */
export function demoPhoto(scene: DemoPhotoScene): Promise<ProcessedImage> {
  let photo = made.get(scene);
  if (!photo) {
    photo = sharp(svg(scene)).png({ compressionLevel: 1 }).toBuffer().then(processPhoto);
    photo.catch(() => made.delete(scene));
    made.set(scene, photo);
  }
  return photo;
}
