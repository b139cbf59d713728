/**
 * RFC 9110 conditional requests (If-None-Match). Entity tags in the header may be a list and may be weak;
 * If-None-Match uses the weak comparison function, so W/"x" matches "x".
 */
function opaque(tag: string): string {
  const t = tag.trim();
  return t.startsWith("W/") ? t.slice(2) : t;
}

/** The entity tags listed in an If-None-Match value, or "*". Malformed members are ignored. */
export function parseEntityTags(header: string): "*" | string[] {
  if (header.trim() === "*") return "*";
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).map(opaque);
}

/** True when an If-None-Match header matches the current representation's tag (answer 304 for GET/HEAD). */
export function ifNoneMatchMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(",") : header;
  const tags = parseEntityTags(value);
  if (tags === "*") return true;
  const current = opaque(etag);
  return tags.includes(current);
}
