import { describe, expect, it } from "vitest";
import { foldText } from "./dataset.js";

describe("folded text", () => {
  it("folds case, accents and spacing", () => {
    expect(foldText("  Pâtisserie   NOËLLE ")).toBe("patisserie noelle");
    expect(foldText("Straße Œuvre Ærø Łódź")).toBe("strasse oeuvre aero lodz");
  });
});
