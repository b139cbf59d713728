import { escapeXml } from "../core/http/xml.js";

/** A value that maps to XML by the Spark convention (the JSON and XML forms of Open311 are the same tree). */
export type SparkValue = string | number | boolean | null | undefined | SparkValue[] | { [name: string]: SparkValue };

/**
 * The element name of one item in each Open311 list. Under the Spark convention a JSON array is a container
 * element whose children all share this name: `services` → `service`, `service_requests` → `request`, …
 */
export const LIST_ITEM: Readonly<Record<string, string>> = {
  services: "service",
  attributes: "attribute",
  values: "value",
  service_requests: "request",
  errors: "error",
  endpoints: "endpoint",
  formats: "format",
};

function element(name: string, value: SparkValue): string {
  if (value === undefined) return "";
  if (value === null) return `<${name}/>`;
  if (Array.isArray(value)) {
    const item = LIST_ITEM[name];
    if (!item) throw new Error(`No Open311 list item name for <${name}>`);
    return `<${name}>${value.map((v) => element(item, v)).join("")}</${name}>`;
  }
  if (typeof value === "object") {
    return `<${name}>${Object.entries(value)
      .map(([k, v]) => element(k, v))
      .join("")}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

/**
 * Serialises an Open311 response as an XML document with the standard's root element: the inverse of the Spark
 * convention, so `toOpen311Xml("services", json)` is exactly the XML form of the JSON `json`. Null values become
 * empty elements, as in the standard's examples.
 */
export function toOpen311Xml(root: string, value: SparkValue): string {
  return `<?xml version="1.0" encoding="utf-8"?>\n${element(root, value)}`;
}
