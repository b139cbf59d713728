/**
 * A coarse device class from a User-Agent ("Phone · Firefox"), enough to recognise one's own sessions. Only this
 * label is stored, never the User-Agent itself.
 */
export function deviceClass(userAgent: string | undefined): string {
  const ua = (userAgent ?? "").slice(0, 512);
  const kind = /iPad|Tablet/i.test(ua)
    ? "Tablet"
    : /Mobi|iPhone|Android.+Mobile/i.test(ua)
      ? "Phone"
      : /Android/i.test(ua)
        ? "Tablet"
        : ua === ""
          ? "Unknown device"
          : "Computer";
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /Firefox\//.test(ua)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(ua)
        ? "Chrome"
        : /Safari\//.test(ua)
          ? "Safari"
          : null;
  return browser ? `${kind} · ${browser}` : kind;
}
