import Bowser from "bowser";

export type DeviceClass = "mobile" | "tablet" | "desktop";
export const DEVICE_CLASSES: readonly DeviceClass[] = ["mobile", "tablet", "desktop"];

/**
 * The coarse device class of a User-Agent, by bowser's platform type. Televisions, consoles and agents bowser does
 * not place count as desktop: large screens, and too few to be worth a class of their own.
 */
export function deviceClassOf(userAgent: string): DeviceClass {
  if (userAgent === "") return "desktop";
  const type = Bowser.getParser(userAgent, true).getPlatformType(true);
  return type === "mobile" || type === "tablet" ? type : "desktop";
}
