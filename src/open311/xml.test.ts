import { describe, expect, it } from "vitest";
import { toOpen311Xml } from "./xml.js";

describe("toOpen311Xml", () => {
  it("writes lists as containers of the standard's item elements, nulls as empty elements, text escaped", () => {
    const xml = toOpen311Xml("service_requests", [
      { service_request_id: "AB12-CD34", status_notes: null, lat: 50.5, description: "Fish & <chips>" },
    ]);
    expect(xml).toBe(
      '<?xml version="1.0" encoding="utf-8"?>\n<service_requests><request><service_request_id>AB12-CD34</service_request_id><status_notes/><lat>50.5</lat><description>Fish &amp; &lt;chips&gt;</description></request></service_requests>',
    );
  });

  it("nests service definitions and discovery formats the same way", () => {
    const xml = toOpen311Xml("service_definition", {
      service_code: "x",
      attributes: [{ code: "a", values: [{ key: "k", name: "N" }] }],
    });
    expect(xml).toContain(
      "<attributes><attribute><code>a</code><values><value><key>k</key><name>N</name></value></values></attribute></attributes>",
    );
    expect(toOpen311Xml("discovery", { endpoints: [{ formats: ["text/xml"] }] })).toContain(
      "<endpoints><endpoint><formats><format>text/xml</format></formats></endpoint></endpoints>",
    );
    expect(() => toOpen311Xml("x", { unknown_list: [] })).toThrow();
  });
});
