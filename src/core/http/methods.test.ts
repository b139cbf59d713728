import { describe, expect, it } from "vitest";
import { MethodIndex } from "./methods.js";

describe("MethodIndex", () => {
  const routes = [
    { method: "GET", url: "/reports" },
    { method: "HEAD", url: "/reports" },
    { method: "POST", url: "/reports" },
    { method: "GET", url: "/reports/:reference" },
    { method: "HEAD", url: "/reports/:reference" },
    { method: "GET", url: "/api/v2/requests.:format" },
    { method: "POST", url: "/api/v2/requests.:format" },
    { method: "OPTIONS", url: "/api/v2/*" },
  ];

  it("lists the methods of the routes matching a path, in Allow order, ignoring the query string", () => {
    const index = new MethodIndex(routes);
    expect(index.allowed("/reports")).toEqual(["GET", "HEAD", "POST"]);
    expect(index.allowed("/reports?page=2")).toEqual(["GET", "HEAD", "POST"]);
    expect(index.allowed("/reports/AB12-CD34")).toEqual(["GET", "HEAD"]);
    expect(index.allowed("/reports/AB%2012")).toEqual(["GET", "HEAD"]);
    expect(index.allowed("/api/v2/requests.json")).toEqual(["GET", "POST", "OPTIONS"]);
  });

  it("knows no path that only a catch-all preflight matches, nor an unknown one", () => {
    const index = new MethodIndex(routes);
    expect(index.allowed("/api/v2/nothing")).toEqual([]);
    expect(index.allowed("/nothing")).toEqual([]);
    expect(index.allowed("/reports/a/b")).toEqual([]);
  });

  it("sees routes added after it was first asked", () => {
    const list = [...routes];
    const index = new MethodIndex(list);
    expect(index.allowed("/ideas")).toEqual([]);
    list.push({ method: "GET", url: "/ideas" });
    expect(index.allowed("/ideas")).toEqual(["GET"]);
  });
});
