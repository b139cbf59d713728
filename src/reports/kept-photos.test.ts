import { describe, expect, it } from "vitest";
import { keptPhotoToken, readKeptPhotoToken } from "./kept-photos.js";

describe("kept photo tokens", () => {
  const secret = "s".repeat(40);
  const hash = "ab".repeat(32);

  it("round-trip the hash and the file name", () => {
    const token = keptPhotoToken(secret, hash, "IMG 1.jpg");
    expect(readKeptPhotoToken(secret, token)).toEqual({ token, hash, name: "IMG 1.jpg" });
  });

  it("refuse tokens that were changed or signed with another secret", () => {
    const token = keptPhotoToken(secret, hash, "a.jpg");
    const [, name, mac] = token.split(".");
    expect(readKeptPhotoToken(secret, `${"cd".repeat(32)}.${name}.${mac}`)).toBeNull();
    expect(readKeptPhotoToken(secret, `${hash}.${Buffer.from("b.jpg").toString("base64url")}.${mac}`)).toBeNull();
    expect(readKeptPhotoToken("t".repeat(40), token)).toBeNull();
    expect(readKeptPhotoToken(secret, `${token}.x`)).toBeNull();
    expect(readKeptPhotoToken(secret, "../../etc/passwd")).toBeNull();
  });
});
