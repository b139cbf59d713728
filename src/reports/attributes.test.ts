import { describe, expect, it } from "vitest";
import { type AttributeDefinition, categoryAttributes, isIsoDatetime, validateAttributes } from "./attributes.js";

const defs: AttributeDefinition[] = [
  { code: "note", datatype: "text", variable: false, required: false, order: 0, description: "Please be careful." },
  {
    code: "fault",
    datatype: "singlevaluelist",
    variable: true,
    required: true,
    order: 1,
    description: "What is wrong?",
    values: [
      { key: "out", name: "Out" },
      { key: "flickering", name: "Flickering" },
    ],
  },
  {
    code: "types",
    datatype: "multivaluelist",
    variable: true,
    required: false,
    order: 2,
    description: "What kinds?",
    values: [
      { key: "a", name: "A" },
      { key: "b", name: "B" },
    ],
  },
  { code: "width", datatype: "number", variable: true, required: false, order: 3, description: "Width?" },
  { code: "seen", datatype: "datetime", variable: true, required: false, order: 4, description: "When?" },
  { code: "post", datatype: "string", variable: true, required: false, order: 5, description: "Post number?" },
  { code: "more", datatype: "text", variable: true, required: false, order: 6, description: "More?" },
];

const fields = (r: { problems: { field: string }[] }) => r.problems.map((p) => p.field);

describe("validateAttributes", () => {
  it("accepts valid answers of every datatype and normalises them", () => {
    const r = validateAttributes(defs, {
      fault: " out ",
      types: ["b", "a", "b", ""],
      width: "12.5",
      seen: "2026-11-22T14:30:00Z",
      post: "WSM 14",
      more: "Line one\nLine two",
    });
    expect(r.problems).toEqual([]);
    expect(r.values).toEqual({
      fault: "out",
      types: ["b", "a"],
      width: "12.5",
      seen: "2026-11-22T14:30:00Z",
      post: "WSM 14",
      more: "Line one\nLine two",
    });
  });

  it("requires only required variable attributes and drops empty answers", () => {
    const r = validateAttributes(defs, { width: "  " });
    expect(fields(r)).toEqual(["attribute[fault]"]);
    expect(r.values).toEqual({});
  });

  it("rejects unknown codes, answers to informational attributes and keys not listed", () => {
    const r = validateAttributes(defs, { fault: "exploded", types: ["a", "z"], colour: "red", note: "hi" });
    expect(fields(r).sort()).toEqual(
      ["attribute[colour]", "attribute[fault]", "attribute[note]", "attribute[types]"].sort(),
    );
  });

  it("checks numbers, datetimes and lengths", () => {
    const bad = validateAttributes(defs, {
      fault: "out",
      width: "12cm",
      seen: "yesterday",
      post: "x".repeat(501),
      more: "y".repeat(4001),
    });
    expect(fields(bad)).toEqual(["attribute[width]", "attribute[seen]", "attribute[post]", "attribute[more]"]);
    expect(validateAttributes(defs, { fault: "out", width: "Infinity" }).problems).toHaveLength(1);
    expect(validateAttributes(defs, { fault: "out", width: "1e400" }).problems).toHaveLength(1);
    expect(validateAttributes(defs, { fault: "out", width: "-3" }).problems).toHaveLength(0);
    expect(validateAttributes(defs, { fault: ["out", "flickering"] }).problems).toHaveLength(1);
    expect(validateAttributes(defs, { fault: "out", post: "x".repeat(500) }).problems).toHaveLength(0);
  });

  it("keeps a string answer to one line; text may have several", () => {
    const bad = validateAttributes(defs, { fault: "out", post: "12\nA" });
    expect(bad.problems).toEqual([{ field: "attribute[post]", message: "must be one line of text (datatype string)" }]);
    expect(validateAttributes(defs, { fault: "out", more: "line one\nline two" }).problems).toHaveLength(0);
  });

  it("knows W3C datetimes", () => {
    for (const ok of [
      "2026-11-22",
      "2026-11-22T14:30Z",
      "2026-11-22T14:30:00+01:00",
      "2026-11-22T14:30:00.123Z",
      "2024-02-29T00:00:00",
    ])
      expect(isIsoDatetime(ok), ok).toBe(true);
    for (const bad of [
      "2026-02-30",
      "2026-13-01",
      "2026-11-22T25:00Z",
      "22/11/2026",
      "2026-11-22T14:30:00 Europe/London",
    ])
      expect(isIsoDatetime(bad), bad).toBe(false);
  });
});

describe("categoryAttributes", () => {
  it("parses the JSON column, sorted by order, and survives bad JSON", () => {
    const parsed = categoryAttributes({ attributes: JSON.stringify([...defs].reverse()) });
    expect(parsed.map((d) => d.code)).toEqual(defs.map((d) => d.code));
    expect(parsed[1]?.values).toHaveLength(2);
    expect(categoryAttributes({ attributes: "not json" })).toEqual([]);
    expect(categoryAttributes({ attributes: '[{"code":"x","datatype":"colour"}]' })).toEqual([]);
  });
});
