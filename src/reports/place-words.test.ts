import { describe, expect, it } from "vitest";
import { describePlace, type GazetteerEntry } from "./place-words.js";

/** A piece of the demo village's gazetteer (src/demo/village.ts). */
const gazetteer: GazetteerEntry[] = [
  { id: "high-street", name: "High Street", kind: "street", latitude: 50.9862, longitude: -2.0437 },
  { id: "church-lane", name: "Church Lane", kind: "street", latitude: 50.9878, longitude: -2.0425 },
  { id: "brook-lane", name: "Brook Lane", kind: "street", latitude: 50.9828, longitude: -2.0418 },
  { id: "the-green", name: "The Green", kind: "street", latitude: 50.9867, longitude: -2.045 },
  { id: "war-memorial", name: "War memorial", kind: "landmark", latitude: 50.987, longitude: -2.044 },
  {
    id: "post-office-bus-stop",
    name: "Bus stop outside the Post Office",
    kind: "landmark",
    latitude: 50.9861,
    longitude: -2.0431,
  },
  { id: "brook-lane-ford", name: "Ford on Brook Lane", kind: "landmark", latitude: 50.982, longitude: -2.041 },
];

const METRES_PER_DEGREE_LAT = 111_320;
/** A point `south` metres due south of a gazetteer entry. */
function southOf(id: string, south: number): { lat: number; lng: number } {
  const p = gazetteer.find((g) => g.id === id);
  if (!p) throw new Error(id);
  return { lat: p.latitude - south / METRES_PER_DEGREE_LAT, lng: p.longitude };
}

describe("describePlace: a report's place in words, from the gazetteer", () => {
  it("names the nearest landmark with a rounded distance, and the street near it", () => {
    expect(describePlace(southOf("post-office-bus-stop", 42), gazetteer)).toBe(
      "About 40 m from Bus stop outside the Post Office, near High Street",
    );
  });

  it("says At a landmark and On a street a few metres away", () => {
    expect(describePlace(southOf("war-memorial", 3), gazetteer)).toBe("At War memorial, near The Green");
    expect(describePlace(southOf("church-lane", 4), gazetteer)).toBe("On Church Lane");
  });

  it("does not repeat a street the landmark's name already gives", () => {
    expect(describePlace(southOf("brook-lane-ford", 2), gazetteer)).toBe("At Ford on Brook Lane");
  });

  it("rounds further distances more coarsely and gives up beyond a kilometre", () => {
    expect(describePlace(southOf("brook-lane-ford", 263), gazetteer)).toBe("About 260 m from Ford on Brook Lane");
    expect(describePlace(southOf("brook-lane-ford", 640), gazetteer)).toBe("About 650 m from Ford on Brook Lane");
    const far = southOf("brook-lane-ford", 1500);
    expect(describePlace(far, gazetteer)).toBe(
      `Marked on the map at ${far.lat.toFixed(5)}° N, ${Math.abs(far.lng).toFixed(5)}° W`,
    );
    expect(describePlace(far, gazetteer, { coordinates: false })).toBeNull();
    expect(describePlace({ lat: -33.9, lng: 151.2 }, [])).toBe("Marked on the map at 33.90000° S, 151.20000° E");
  });

  it("puts what the reporter said first, with the gazetteer's words beside it", () => {
    const near = southOf("post-office-bus-stop", 42);
    expect(describePlace({ ...near, locationText: "Outside number 12" }, gazetteer)).toBe(
      "Outside number 12 (about 40 m from Bus stop outside the Post Office, near High Street)",
    );
    expect(
      describePlace({ ...near, placeName: "Church Lane", locationText: "By the fingerpost at the top" }, gazetteer),
    ).toBe(
      "Church Lane: By the fingerpost at the top (about 40 m from Bus stop outside the Post Office, near High Street)",
    );
  });

  it("does not say a place twice", () => {
    const at = southOf("high-street", 0);
    expect(describePlace({ ...at, placeName: "High Street" }, gazetteer)).toBe("High Street");
    expect(describePlace({ ...at, placeName: "High Street", locationText: "Outside 10 high street" }, gazetteer)).toBe(
      "Outside 10 high street",
    );
    expect(
      describePlace({ ...southOf("war-memorial", 2), locationText: "Bench beside the war memorial" }, gazetteer),
    ).toBe("Bench beside the war memorial");
    expect(describePlace({ lat: null, lng: null, placeName: "High Street" }, gazetteer)).toBe("High Street");
  });

  it("leaves out the reporter's own text when asked (a mail to an address nobody confirmed)", () => {
    const near = southOf("post-office-bus-stop", 42);
    expect(
      describePlace({ ...near, placeName: "Church Lane", locationText: "Call 07700 900000" }, gazetteer, {
        reporterText: false,
      }),
    ).toBe("Church Lane (about 40 m from Bus stop outside the Post Office, near High Street)");
    expect(describePlace({ lat: null, lng: null, locationText: "Call me" }, gazetteer, { reporterText: false })).toBe(
      null,
    );
  });

  it("is null without any place, and ignores blank text", () => {
    expect(describePlace({ lat: null, lng: null }, gazetteer)).toBeNull();
    expect(describePlace({ lat: null, lng: null, placeName: null, locationText: "  " }, gazetteer)).toBeNull();
  });

  it("describes a page of reports against a large gazetteer quickly", () => {
    const big: GazetteerEntry[] = Array.from({ length: 2000 }, (_, i) => ({
      id: `p${i}`,
      name: `Place ${i}`,
      kind: i % 2 ? "street" : "landmark",
      latitude: 50.98 + (i % 50) * 0.0003,
      longitude: -2.05 + Math.floor(i / 50) * 0.0003,
    }));
    const started = performance.now();
    for (let i = 0; i < 1000; i++) describePlace({ lat: 50.985 + i * 1e-6, lng: -2.04 }, big);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
