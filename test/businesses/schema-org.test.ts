import { describe, expect, it } from "vitest";
import { expand, ownTerms, pinnedVocabulary, schemaOrgProblems } from "./schema-org.js";

/** The checker the business API's and pages' tests use, on hand-made documents. */
describe("schema.org vocabulary check", () => {
  const check = async (doc: Record<string, unknown>, own?: Awaited<ReturnType<typeof ownTerms>>) =>
    schemaOrgProblems(await expand({ "@context": "https://schema.org", ...doc }), own);

  it("pins one schema.org release for classes and domains", () => {
    expect(pinnedVocabulary.domains).toBe(pinnedVocabulary.classes);
    expect(pinnedVocabulary.domains).toMatch(/@zazuko\/rdf-vocabularies@2023\.1\.19/);
  });

  it("accepts properties defined for the type or for one of its superclasses, nested nodes included", async () => {
    expect(
      await check({
        "@type": "Bakery",
        name: "x",
        identifier: "x",
        telephone: "01632 960101",
        address: { "@type": "PostalAddress", streetAddress: "1 High Street" },
        geo: { "@type": "GeoCoordinates", latitude: 1, longitude: 2 },
        openingHoursSpecification: [
          { "@type": "OpeningHoursSpecification", dayOfWeek: ["Monday"], opens: "09:00", closes: "17:00" },
        ],
        servesCuisine: "bread",
        keywords: "sourdough",
      }),
    ).toEqual([]);
  });

  it("refuses a property outside its domain, at any depth, naming where and why", async () => {
    expect(await check({ "@type": "Bakery", category: "Food", dateModified: "2026-11-01T00:00:00Z" })).toEqual([
      "$[0]: category is not defined for Bakery (its domain: ActionAccessSpecification, Invoice, Offer, PhysicalActivity, Product, Recommendation, Service, SpecialAnnouncement)",
      "$[0]: dateModified is not defined for Bakery (its domain: CreativeWork, DataFeedItem)",
    ]);
    expect(await check({ "@type": "Store", address: { "@type": "PostalAddress", latitude: 1 } })).toEqual([
      "$[0].address[0]: latitude is not defined for PostalAddress (its domain: GeoCoordinates, Place)",
    ]);
    expect(await check({ "@type": "Store", servesCuisine: "bread" })).toEqual([
      "$[0]: servesCuisine is not defined for Store (its domain: FoodEstablishment)",
    ]);
  });

  it("refuses unknown terms, types and properties on untyped nodes", async () => {
    expect(await check({ "@type": "Bakery", "http://example.org/x": 1 })).toEqual([
      "$[0]: property http://example.org/x is not in the vocabulary",
    ]);
    expect(await check({ "@type": "Bakkery", name: "x" })).toEqual([
      "$[0]: @type http://schema.org/Bakkery",
      "$[0]: name is not defined for Bakkery (its domain: Thing)",
    ]);
    expect(await check({ "@type": "Bakery", address: { streetAddress: "1 High Street" } })).toEqual([
      "$[0].address[0]: property streetAddress on a node without @type",
    ]);
  });

  it("accepts another vocabulary's terms only as that vocabulary defines them", async () => {
    const own = await ownTerms({
      "@context": { schema: "http://schema.org/" },
      "@graph": [
        { "@id": "https://example.org/ns#category", "schema:domainIncludes": { "@id": "schema:LocalBusiness" } },
      ],
    });
    const doc = {
      "@context": ["https://schema.org", { category: "https://example.org/ns#category" }],
      "@type": "Bakery",
      category: "Food",
      address: { "@type": "PostalAddress", category: "x" },
    };
    expect(schemaOrgProblems(await expand(doc), own)).toEqual([
      "$[0].address[0]: https://example.org/ns#category is not defined for PostalAddress (its domain: LocalBusiness)",
    ]);
  });
});
