import { describe, expect, it } from "vitest";
import { foldText, SearchIndex } from "./dataset.js";

describe("free-text search", () => {
  it("folds case, accents and spacing", () => {
    expect(foldText("  Pâtisserie   NOËLLE ")).toBe("patisserie noelle");
    expect(foldText("Straße Œuvre Ærø Łódź")).toBe("strasse oeuvre aero lodz");
  });

  it("finds exactly the texts containing every word, as a substring test would", () => {
    const words = ["mill", "old", "bakery", "3", "high", "street,", "ale", "cafe", "oak", "ok"];
    let seed = 1;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = () => words[Math.floor(rand() * words.length)] as string;
    const texts = Array.from({ length: 400 }, () => Array.from({ length: 1 + Math.floor(rand() * 8) }, pick).join(" "));
    const index = new SearchIndex(texts);
    const queries = [["mill"], ["ill"], ["ok"], ["o"], ["street"], ["old", "bakery"], ["oak", "3", "cafe"], ["zzz"]];
    for (let i = 0; i < 50; i++) queries.push([pick().slice(0, 2), pick()]);
    for (const q of queries) {
      const expected = texts.flatMap((t, i) => (q.every((w) => t.includes(w)) ? [i] : []));
      expect(
        [...index.matching(q)].sort((a, b) => a - b),
        q.join(" "),
      ).toEqual(expected);
    }
  });
});
