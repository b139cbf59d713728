/**
 * Demo data for Wrenford St Mary, a FICTIONAL village in rural southern England.
 *
 * Every person, business, street, council, report and project here is invented. Telephone numbers come from
 * Ofcom's drama ranges (01632 960xxx and 07700 900xxx), email addresses and websites use example.org / example.com,
 * and the "YR7" postcode district follows the UK postcode format but is not a real postcode area.
 * The data is deterministic: no randomness, no clocks. Report dates are relative ("days ago").
 */

import { DEFAULT_VILLAGE } from "../config.js";
import type {
  DayOfWeek,
  DemoBusiness,
  DemoCategory,
  DemoCouncillor,
  DemoIdea,
  DemoNewsletterIssue,
  DemoOpeningHours,
  DemoPlace,
  DemoProject,
  DemoReport,
  DemoVillageInfo,
} from "./types.js";

// ---------------------------------------------------------------------------------------------------------------
// The village
// ---------------------------------------------------------------------------------------------------------------

/** The village's identity is the configuration's default (a platform started without VILLAGE_* settings). */
export const village: DemoVillageInfo = {
  name: DEFAULT_VILLAGE.name,
  councilName: DEFAULT_VILLAGE.councilName,
  contactEmail: DEFAULT_VILLAGE.contactEmail,
  centre: { ...DEFAULT_VILLAGE.centre },
  bounds: { ...DEFAULT_VILLAGE.bounds },
};

const LOCALITY = "Wrenford St Mary";
const REGION = "Dorset";

// ---------------------------------------------------------------------------------------------------------------
// Gazetteer
// ---------------------------------------------------------------------------------------------------------------

export const places: DemoPlace[] = [
  // Streets
  { id: "high-street", name: "High Street", kind: "street", lat: 50.9862, lng: -2.0437 },
  { id: "church-lane", name: "Church Lane", kind: "street", lat: 50.9878, lng: -2.0425 },
  { id: "mill-road", name: "Mill Road", kind: "street", lat: 50.9843, lng: -2.047 },
  { id: "brook-lane", name: "Brook Lane", kind: "street", lat: 50.9828, lng: -2.0418 },
  { id: "the-green", name: "The Green", kind: "street", lat: 50.9867, lng: -2.045 },
  { id: "station-road", name: "Station Road", kind: "street", lat: 50.989, lng: -2.0395 },
  { id: "back-lane", name: "Back Lane", kind: "street", lat: 50.9853, lng: -2.0462 },
  { id: "orchard-close", name: "Orchard Close", kind: "street", lat: 50.9883, lng: -2.0468 },
  { id: "school-lane", name: "School Lane", kind: "street", lat: 50.9848, lng: -2.0421 },
  { id: "pound-lane", name: "Pound Lane", kind: "street", lat: 50.9905, lng: -2.0452 },
  { id: "vicarage-road", name: "Vicarage Road", kind: "street", lat: 50.9887, lng: -2.041 },
  { id: "chapel-street", name: "Chapel Street", kind: "street", lat: 50.9858, lng: -2.0398 },
  { id: "west-end", name: "West End", kind: "street", lat: 50.9864, lng: -2.0505 },
  { id: "forge-lane", name: "Forge Lane", kind: "street", lat: 50.9846, lng: -2.0445 },
  { id: "meadow-way", name: "Meadow Way", kind: "street", lat: 50.9832, lng: -2.0455 },
  { id: "sheepwash-lane", name: "Sheepwash Lane", kind: "street", lat: 50.9812, lng: -2.0385 },
  { id: "downs-road", name: "Downs Road", kind: "street", lat: 50.9925, lng: -2.042 },
  { id: "kingsmead", name: "Kingsmead", kind: "street", lat: 50.9876, lng: -2.0492 },
  // Landmarks
  { id: "st-marys-church", name: "St Mary's Church", kind: "landmark", lat: 50.9881, lng: -2.043 },
  { id: "village-green", name: "The village green", kind: "landmark", lat: 50.9868, lng: -2.0446 },
  {
    id: "primary-school",
    name: "Wrenford St Mary C of E Primary School",
    kind: "landmark",
    lat: 50.985,
    lng: -2.0416,
  },
  { id: "village-hall", name: "Village hall", kind: "landmark", lat: 50.9865, lng: -2.0458 },
  { id: "war-memorial", name: "War memorial", kind: "landmark", lat: 50.987, lng: -2.044 },
  {
    id: "post-office-bus-stop",
    name: "Bus stop outside the Post Office",
    kind: "landmark",
    lat: 50.9861,
    lng: -2.0431,
  },
  { id: "recreation-ground", name: "Recreation ground play area", kind: "landmark", lat: 50.9834, lng: -2.0463 },
  { id: "brook-lane-ford", name: "Ford on Brook Lane", kind: "landmark", lat: 50.982, lng: -2.041 },
  { id: "mill-pond", name: "Mill pond", kind: "landmark", lat: 50.9838, lng: -2.049 },
  { id: "allotments", name: "Pound Lane allotments", kind: "landmark", lat: 50.991, lng: -2.0465 },
  {
    id: "hanging-wood-stile",
    name: "Stile at Hanging Wood (Footpath 12)",
    kind: "landmark",
    lat: 50.9935,
    lng: -2.038,
  },
  { id: "old-station-car-park", name: "Old station car park", kind: "landmark", lat: 50.9895, lng: -2.0385 },
];

const placesById = new Map(places.map((p) => [p.id, p]));

/** Looks up a gazetteer entry; throws on a typo so the data cannot silently drift. */
export function place(id: string): DemoPlace {
  const found = placesById.get(id);
  if (!found) throw new Error(`Unknown demo place: ${id}`);
  return found;
}

const METRES_PER_DEGREE_LAT = 111_320;

/** A point `north` metres north and `east` metres east of a gazetteer place (negative = south / west). */
function near(placeId: string, north: number, east: number): { lat: number; lng: number } {
  const p = place(placeId);
  const lat = p.lat + north / METRES_PER_DEGREE_LAT;
  const lng = p.lng + east / (METRES_PER_DEGREE_LAT * Math.cos((p.lat * Math.PI) / 180));
  return { lat: Math.round(lat * 1e6) / 1e6, lng: Math.round(lng * 1e6) / 1e6 };
}

function geoNear(placeId: string, north: number, east: number): { latitude: number; longitude: number } {
  const { lat, lng } = near(placeId, north, east);
  return { latitude: lat, longitude: lng };
}

// ---------------------------------------------------------------------------------------------------------------
// Businesses
// ---------------------------------------------------------------------------------------------------------------

const MON_FRI: DayOfWeek[] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];
const MON_SAT: DayOfWeek[] = [...MON_FRI, "Saturday"];
const EVERY_DAY: DayOfWeek[] = [...MON_SAT, "Sunday"];
const TUE_SAT: DayOfWeek[] = ["Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

function hours(dayOfWeek: DayOfWeek[], opens: string, closes: string): DemoOpeningHours {
  return { dayOfWeek: [...dayOfWeek], opens, closes };
}

/** Postcodes by street: the fictional YR7 district (valid format, not a real postcode area). */
const POSTCODES: Record<string, string> = {
  "high-street": "YR7 2QP",
  "church-lane": "YR7 2QA",
  "mill-road": "YR7 2RD",
  "brook-lane": "YR7 2RF",
  "the-green": "YR7 2QB",
  "station-road": "YR7 2SE",
  "back-lane": "YR7 2RB",
  "orchard-close": "YR7 2SH",
  "school-lane": "YR7 2RG",
  "pound-lane": "YR7 2SL",
  "vicarage-road": "YR7 2SN",
  "chapel-street": "YR7 2QR",
  "west-end": "YR7 2TA",
  "forge-lane": "YR7 2RH",
  "meadow-way": "YR7 2RJ",
  "sheepwash-lane": "YR7 2TB",
  "downs-road": "YR7 2TD",
  kingsmead: "YR7 2SW",
};

function address(streetAddress: string, streetId: string): DemoBusiness["address"] {
  const postalCode = POSTCODES[streetId];
  if (!postalCode) throw new Error(`No postcode for street: ${streetId}`);
  return { streetAddress, addressLocality: LOCALITY, addressRegion: REGION, postalCode, addressCountry: "GB" };
}

export const businesses: DemoBusiness[] = [
  // --- Food and drink ---------------------------------------------------------------------------------------
  {
    id: "the-old-bakery",
    name: "The Old Bakery",
    schemaType: "Bakery",
    category: "Food and drink",
    description:
      "Family bakery in the village's original bakehouse, baking sourdough, lardy cake and Dorset apple cake every morning. Order Saturday loaves by Thursday evening.",
    address: address("3 High Street", "high-street"),
    geo: geoNear("high-street", 8, -60),
    telephone: "01632 960101",
    email: "theoldbakery@example.org",
    url: "https://example.org/the-old-bakery",
    openingHours: [hours(TUE_SAT, "07:00", "15:00")],
    sameAs: ["https://example.org/social/the-old-bakery"],
  },
  {
    id: "patisserie-noelle",
    name: "Pâtisserie Noëlle",
    schemaType: "Bakery",
    category: "Food and drink",
    description:
      "French pastries, croissants and tarte au citron from a Lyon-trained pâtissière. Celebration cakes and croquembouche to order with a week's notice.",
    address: address("6 Chapel Street", "chapel-street"),
    geo: geoNear("chapel-street", -6, -30),
    telephone: "01632 960102",
    email: "bonjour.patisserie-noelle@example.com",
    url: "https://example.org/patisserie-noelle",
    openingHours: [
      hours(["Wednesday", "Thursday", "Friday", "Saturday"], "08:30", "16:00"),
      hours(["Sunday"], "09:00", "12:00"),
    ],
  },
  {
    id: "cafe-lumiere",
    name: "Café Lumière",
    schemaType: "CafeOrCoffeeShop",
    category: "Food and drink",
    description:
      "Bright café opposite the bus stop serving locally roasted coffee, crêpes and soups. Children's corner inside and dog-friendly tables on the pavement.",
    address: address("12 High Street", "high-street"),
    geo: geoNear("high-street", -8, -10),
    telephone: "01632 960103",
    email: "hello.cafe-lumiere@example.com",
    url: "https://example.org/cafe-lumiere",
    openingHours: [
      hours(MON_FRI, "08:00", "17:00"),
      hours(["Saturday"], "09:00", "17:00"),
      hours(["Sunday"], "10:00", "15:00"),
    ],
    sameAs: ["https://example.org/social/cafe-lumiere"],
  },
  {
    id: "wrens-nest-tearoom",
    name: "The Wren's Nest Tearoom",
    schemaType: "CafeOrCoffeeShop",
    category: "Food and drink",
    description:
      "Cream teas and homemade cakes in a thatched cottage overlooking the village green. Walkers and muddy boots welcome; closed Mondays and Tuesdays.",
    address: address("2 The Green", "the-green"),
    geo: geoNear("the-green", 12, -18),
    telephone: "01632 960104",
    email: "wrensnest@example.org",
    openingHours: [hours(["Wednesday", "Thursday", "Friday", "Saturday", "Sunday"], "10:00", "17:00")],
  },
  {
    id: "the-plough-inn",
    name: "The Plough Inn",
    schemaType: "BarOrPub",
    category: "Food and drink",
    description:
      "Seventeenth-century coaching inn with ales from Sheepwash Brewery, Sunday roasts and a quiz every Tuesday. The skittle alley can be booked for parties.",
    address: address("21 High Street", "high-street"),
    geo: geoNear("high-street", 10, 45),
    telephone: "01632 960105",
    email: "theplough@example.org",
    url: "https://example.org/the-plough-inn",
    openingHours: [
      hours(["Monday", "Tuesday", "Wednesday", "Thursday"], "12:00", "23:00"),
      hours(["Friday", "Saturday"], "12:00", "23:30"),
      hours(["Sunday"], "12:00", "22:30"),
    ],
    sameAs: ["https://example.org/social/the-plough-inn"],
  },
  {
    id: "the-wheatsheaf",
    name: "The Wheatsheaf",
    schemaType: "BarOrPub",
    category: "Food and drink",
    description:
      "Traditional village local with a beer garden running down to the mill stream, darts and dominoes teams, and folk music on the first Friday of the month.",
    address: address("40 Mill Road", "mill-road"),
    geo: geoNear("mill-road", -10, -35),
    telephone: "01632 960106",
    email: "wheatsheaf@example.org",
    openingHours: [
      hours(MON_FRI, "16:00", "23:00"),
      hours(["Saturday"], "12:00", "23:30"),
      hours(["Sunday"], "12:00", "22:00"),
    ],
  },
  {
    id: "the-fox-and-hounds",
    name: "The Fox and Hounds",
    schemaType: "BarOrPub",
    category: "Food and drink",
    description:
      "Dining pub on the western edge of the village, popular with walkers coming down from Hanging Wood. Seasonal menu using game and produce from nearby farms; closed Mondays.",
    address: address("1 West End", "west-end"),
    geo: geoNear("west-end", 8, 20),
    telephone: "01632 960107",
    email: "foxandhounds@example.com",
    url: "https://example.org/the-fox-and-hounds",
    openingHours: [
      hours(["Tuesday", "Wednesday", "Thursday"], "12:00", "22:30"),
      hours(["Friday", "Saturday"], "12:00", "23:00"),
      hours(["Sunday"], "12:00", "18:00"),
    ],
  },
  {
    id: "la-petite-creperie",
    name: "La Petite Crêperie",
    schemaType: "Restaurant",
    category: "Food and drink",
    description:
      "Breton galettes and sweet crêpes made with buckwheat flour, served with Normandy cider from the barrel. Gluten-free galettes on request.",
    address: address("15 Chapel Street", "chapel-street"),
    geo: geoNear("chapel-street", 8, 22),
    telephone: "01632 960108",
    email: "creperie@example.com",
    url: "https://example.org/la-petite-creperie",
    openingHours: [
      hours(["Thursday", "Friday", "Saturday"], "12:00", "14:30"),
      hours(["Thursday", "Friday", "Saturday"], "18:00", "21:30"),
      hours(["Sunday"], "12:00", "15:00"),
    ],
  },
  {
    id: "the-mill-house",
    name: "The Mill House Restaurant",
    schemaType: "Restaurant",
    category: "Food and drink",
    description:
      "Restaurant in the restored watermill, with a tasting menu built around Dorset produce and the old wheel turning beside the dining room. Booking essential.",
    address: address("The Old Mill, Mill Road", "mill-road"),
    geo: geoNear("mill-pond", 15, 25),
    telephone: "01632 960109",
    email: "bookings.millhouse@example.com",
    url: "https://example.org/the-mill-house",
    openingHours: [
      hours(["Wednesday", "Thursday", "Friday", "Saturday"], "18:30", "22:00"),
      hours(["Sunday"], "12:00", "15:00"),
    ],
    sameAs: ["https://example.org/social/the-mill-house"],
  },
  {
    id: "wrenford-fish-bar",
    name: "Wrenford Fish Bar",
    schemaType: "FastFoodRestaurant",
    category: "Food and drink",
    description:
      "Fish and chips with battered sausages, mushy peas and homemade tartare sauce. Phone orders taken from half past four.",
    address: address("9 Chapel Street", "chapel-street"),
    geo: geoNear("chapel-street", 7, -5),
    telephone: "01632 960110",
    openingHours: [hours(["Friday"], "11:30", "13:30"), hours(TUE_SAT, "17:00", "21:00")],
  },
  {
    id: "sheepwash-brewery",
    name: "Sheepwash Brewery",
    schemaType: "Brewery",
    category: "Food and drink",
    description:
      "Small brewery in a converted barn making Wrenford Gold and Hanging Wood Porter. Tap room and bottle shop at weekends; tours by arrangement.",
    address: address("Unit 2, Sheepwash Farm, Sheepwash Lane", "sheepwash-lane"),
    geo: geoNear("sheepwash-lane", -60, 110),
    telephone: "01632 960111",
    email: "beer.sheepwash@example.com",
    url: "https://example.org/sheepwash-brewery",
    openingHours: [hours(["Friday"], "16:00", "20:00"), hours(["Saturday"], "11:00", "17:00")],
    sameAs: ["https://example.org/social/sheepwash-brewery"],
  },
  {
    id: "meadowsweet-ices",
    name: "Meadowsweet Ices",
    schemaType: "IceCreamShop",
    category: "Food and drink",
    description:
      "Ice cream made with milk from the Sheepwash herd, in flavours that change weekly, from honey and lavender to blackberry ripple. Shorter hours in winter.",
    address: address("4 The Green", "the-green"),
    geo: geoNear("the-green", 14, 4),
    telephone: "01632 960112",
    openingHours: [
      hours(["Wednesday", "Thursday", "Friday"], "13:00", "17:00"),
      hours(["Saturday", "Sunday"], "11:00", "17:30"),
    ],
  },

  // --- Shops ------------------------------------------------------------------------------------------------
  {
    id: "wrenford-village-stores",
    name: "Wrenford Village Stores",
    schemaType: "ConvenienceStore",
    category: "Shops",
    description:
      "Community-owned shop selling groceries, newspapers, local eggs and bread from The Old Bakery. Staffed partly by volunteers; parcel drop-off point.",
    address: address("8 High Street", "high-street"),
    geo: geoNear("high-street", -9, -32),
    telephone: "01632 960113",
    email: "villagestores@example.org",
    url: "https://example.org/wrenford-village-stores",
    openingHours: [hours(MON_SAT, "07:00", "20:00"), hours(["Sunday"], "08:00", "18:00")],
  },
  {
    id: "sheepwash-farm-shop",
    name: "Sheepwash Farm Shop",
    schemaType: "GroceryStore",
    category: "Shops",
    description:
      "The farm's own beef, lamb and vegetables, a butcher's counter and a milk vending machine in the yard. Pick-your-own strawberries in June.",
    address: address("Sheepwash Farm, Sheepwash Lane", "sheepwash-lane"),
    geo: geoNear("sheepwash-lane", -45, 140),
    telephone: "01632 960114",
    email: "farmshop.sheepwash@example.com",
    url: "https://example.org/sheepwash-farm-shop",
    openingHours: [hours(TUE_SAT, "09:00", "17:00"), hours(["Sunday"], "10:00", "14:00")],
  },
  {
    id: "hollis-butchers-and-deli",
    name: "Hollis & Daughter Butchers and Deli",
    schemaType: "GroceryStore",
    category: "Shops",
    description:
      "Traditional butcher's with home-made sausages and pies and a deli counter of West Country cheeses. Free delivery in the village on Fridays.",
    address: address("17 High Street", "high-street"),
    geo: geoNear("high-street", 9, 20),
    telephone: "01632 960115",
    email: "hollis@example.org",
    openingHours: [
      hours(["Tuesday", "Wednesday", "Thursday", "Friday"], "08:00", "17:00"),
      hours(["Saturday"], "08:00", "13:00"),
    ],
  },
  {
    id: "bracken-and-bloom",
    name: "Bracken & Bloom",
    schemaType: "Florist",
    category: "Shops",
    description:
      "Florist specialising in British-grown seasonal flowers, for weddings, funerals and the Christmas wreath workshops in the village hall.",
    address: address("5 Church Lane", "church-lane"),
    geo: geoNear("church-lane", -25, 8),
    telephone: "01632 960116",
    email: "brackenandbloom@example.com",
    url: "https://example.org/bracken-and-bloom",
    openingHours: [hours(MON_FRI, "09:00", "17:00"), hours(["Saturday"], "09:00", "13:00")],
    sameAs: ["https://example.org/social/bracken-and-bloom"],
  },
  {
    id: "forge-hardware",
    name: "Forge Hardware",
    schemaType: "HardwareStore",
    category: "Shops",
    description:
      "Old-fashioned ironmonger in the former forge: screws sold by weight, paraffin, bottled gas, key cutting and garden tools. If it isn't on the shelf they will order it.",
    address: address("2 Forge Lane", "forge-lane"),
    geo: geoNear("forge-lane", 20, 10),
    telephone: "01632 960117",
    email: "forgehardware@example.org",
    openingHours: [hours(MON_FRI, "08:00", "17:30"), hours(["Saturday"], "08:30", "13:00")],
  },
  {
    id: "the-book-loft",
    name: "The Book Loft",
    schemaType: "BookStore",
    category: "Shops",
    description:
      "New and second-hand books next door to Café Lumière, with a strong local history and walking guides section. Story time for children on Saturday mornings.",
    address: address("14 High Street", "high-street"),
    geo: geoNear("high-street", -8, 4),
    telephone: "01632 960118",
    email: "bookloft@example.com",
    url: "https://example.org/the-book-loft",
    openingHours: [hours(TUE_SAT, "10:00", "17:00")],
  },
  {
    id: "nettlebed-clothing",
    name: "Nettlebed Clothing",
    schemaType: "ClothingStore",
    category: "Shops",
    description:
      "Country clothing, wellies and waxed jackets, plus uniform for the primary school. Repairs and alterations taken in.",
    address: address("19 High Street", "high-street"),
    geo: geoNear("high-street", 9, 32),
    telephone: "01632 960119",
    email: "nettlebed@example.org",
    openingHours: [hours(MON_SAT, "09:30", "17:00")],
  },
  {
    id: "wrenford-garden-centre",
    name: "Wrenford Garden Centre",
    schemaType: "GardenStore",
    category: "Shops",
    description:
      "Family-run nursery growing its own bedding plants, fruit trees and native hedging, with compost, seeds and a small café in the old glasshouse.",
    address: address("West End Nurseries, West End", "west-end"),
    geo: geoNear("west-end", -40, -150),
    telephone: "01632 960120",
    email: "plants.wrenford-gc@example.com",
    url: "https://example.org/wrenford-garden-centre",
    openingHours: [hours(MON_SAT, "09:00", "17:00"), hours(["Sunday"], "10:00", "16:00")],
    sameAs: ["https://example.org/social/wrenford-garden-centre"],
  },
  {
    id: "paws-and-claws",
    name: "Paws & Claws",
    schemaType: "PetStore",
    category: "Shops",
    description:
      "Pet food, bird seed and animal bedding, with a self-service dog wash and free delivery of heavy sacks within the village.",
    address: address("11 Chapel Street", "chapel-street"),
    geo: geoNear("chapel-street", 7, 6),
    telephone: "01632 960121",
    email: "pawsandclaws@example.org",
    openingHours: [hours(MON_FRI, "09:00", "17:30"), hours(["Saturday"], "09:00", "16:00")],
  },
  {
    id: "wrenford-cycles",
    name: "Wrenford Cycles",
    schemaType: "BikeStore",
    category: "Shops",
    description:
      "Bike sales, servicing and e-bike hire in the old railway goods shed, right at the start of the railway path. Puncture repairs while you wait.",
    address: address("The Goods Shed, Station Road", "station-road"),
    geo: geoNear("old-station-car-park", 15, -25),
    telephone: "01632 960122",
    email: "cycles@example.com",
    url: "https://example.org/wrenford-cycles",
    openingHours: [hours(TUE_SAT, "09:00", "17:30")],
  },
  {
    id: "the-antique-barn",
    name: "The Antique Barn",
    schemaType: "Store",
    category: "Shops",
    description:
      "A barn full of country furniture, old tools, china and enamel signs from a dozen dealers. Furniture restoration and French polishing to order.",
    address: address("Mill Farm Barn, Mill Road", "mill-road"),
    geo: geoNear("mill-road", -70, -80),
    telephone: "01632 960123",
    email: "antiquebarn@example.org",
    openingHours: [hours(["Thursday", "Friday", "Saturday", "Sunday"], "10:00", "16:00")],
  },
  {
    id: "threadneedle-wool-and-crafts",
    name: "Threadneedle Wool & Crafts",
    schemaType: "HobbyShop",
    category: "Shops",
    description:
      "Wool, fabric and craft supplies, with knit-and-natter evenings on Wednesdays and beginners' crochet classes in the back room.",
    address: address("7 Church Lane", "church-lane"),
    geo: geoNear("church-lane", -10, 12),
    telephone: "01632 960124",
    email: "threadneedle@example.com",
    openingHours: [hours(TUE_SAT, "10:00", "16:30"), hours(["Wednesday"], "18:30", "21:00")],
  },

  // --- Health -----------------------------------------------------------------------------------------------
  {
    id: "wrenford-surgery",
    name: "Wrenford Surgery",
    schemaType: "Physician",
    category: "Health",
    description:
      "GP practice for Wrenford St Mary and the surrounding hamlets, with a dispensary for patients who live more than a mile from a pharmacy. Ring at 8am for same-day appointments.",
    address: address("The Surgery, School Lane", "school-lane"),
    geo: geoNear("school-lane", -15, -35),
    telephone: "01632 960125",
    email: "wrenford.surgery@example.org",
    url: "https://example.org/wrenford-surgery",
    openingHours: [hours(MON_FRI, "08:00", "18:30")],
  },
  {
    id: "pennyroyal-pharmacy",
    name: "Pennyroyal Pharmacy",
    schemaType: "Pharmacy",
    category: "Health",
    description:
      "Independent chemist offering prescriptions, flu jabs and blood pressure checks, and a free prescription delivery round for housebound residents.",
    address: address("16 High Street", "high-street"),
    geo: geoNear("high-street", -8, 16),
    telephone: "01632 960126",
    email: "pennyroyal@example.org",
    openingHours: [hours(MON_FRI, "09:00", "18:00"), hours(["Saturday"], "09:00", "13:00")],
  },
  {
    id: "vicarage-road-dental",
    name: "Vicarage Road Dental Practice",
    schemaType: "Dentist",
    category: "Health",
    description:
      "NHS and private dentistry in a converted Victorian house, with step-free access through the side entrance. Emergency slots held back every morning.",
    address: address("3 Vicarage Road", "vicarage-road"),
    geo: geoNear("vicarage-road", -12, -20),
    telephone: "01632 960127",
    email: "dental@example.com",
    url: "https://example.org/vicarage-road-dental",
    openingHours: [
      hours(["Monday", "Tuesday", "Wednesday", "Thursday"], "08:30", "17:30"),
      hours(["Friday"], "08:30", "13:00"),
    ],
  },
  {
    id: "hawthorn-opticians",
    name: "Hawthorn Opticians",
    schemaType: "Optician",
    category: "Health",
    description:
      "Eye tests, glasses and contact lenses, with home visits for residents who cannot get to the shop. Frames repaired while you have a coffee next door.",
    address: address("20 High Street", "high-street"),
    geo: geoNear("high-street", -9, 40),
    telephone: "01632 960128",
    email: "hawthorn@example.org",
    openingHours: [
      hours(["Tuesday", "Wednesday", "Thursday", "Friday"], "09:00", "17:00"),
      hours(["Saturday"], "09:00", "12:30"),
    ],
  },

  // --- Beauty and wellbeing ---------------------------------------------------------------------------------
  {
    id: "snips-hair-studio",
    name: "Snips Hair Studio",
    schemaType: "HairSalon",
    category: "Beauty and wellbeing",
    description: "Cuts, colour and wedding hair in a two-chair studio. Late appointments on Thursdays for commuters.",
    address: address("10 Chapel Street", "chapel-street"),
    geo: geoNear("chapel-street", -7, -12),
    telephone: "01632 960129",
    email: "snips@example.com",
    openingHours: [
      hours(["Tuesday", "Wednesday", "Friday"], "09:00", "17:30"),
      hours(["Thursday"], "11:00", "20:00"),
      hours(["Saturday"], "08:30", "14:00"),
    ],
  },
  {
    id: "the-barbers-chair",
    name: "The Barber's Chair",
    schemaType: "HairSalon",
    category: "Beauty and wellbeing",
    description:
      "Walk-in barber's with hot towel shaves and beard trims. Children's cuts half price on weekday afternoons.",
    address: address("23 High Street", "high-street"),
    geo: geoNear("high-street", 10, 58),
    telephone: "01632 960130",
    openingHours: [hours(TUE_SAT, "09:00", "17:00")],
  },
  {
    id: "elan-beauty-rooms",
    name: "Élan Beauty Rooms",
    schemaType: "BeautySalon",
    category: "Beauty and wellbeing",
    description:
      "Facials, nails, waxing and massage in a quiet cottage salon, using organic products made in Dorset. Gift vouchers available.",
    address: address("1 Forge Lane", "forge-lane"),
    geo: geoNear("forge-lane", 25, -8),
    telephone: "01632 960131",
    email: "elan@example.com",
    url: "https://example.org/elan-beauty-rooms",
    openingHours: [
      hours(["Tuesday", "Wednesday", "Thursday", "Friday"], "09:30", "18:00"),
      hours(["Saturday"], "09:00", "15:00"),
    ],
    sameAs: ["https://example.org/social/elan-beauty-rooms"],
  },
  {
    id: "willowbank-day-spa",
    name: "Willowbank Day Spa",
    schemaType: "DaySpa",
    category: "Beauty and wellbeing",
    description:
      "Day spa in the walled garden of Wrenford Manor with an outdoor hot tub, sauna and treatment rooms. Spa days must be booked at least 48 hours ahead.",
    address: address("Wrenford Manor, Downs Road", "downs-road"),
    geo: geoNear("downs-road", 95, 60),
    telephone: "01632 960132",
    email: "spa.wrenfordmanor@example.com",
    url: "https://example.org/willowbank-day-spa",
    openingHours: [hours(EVERY_DAY, "09:00", "20:00")],
  },

  // --- Trades -----------------------------------------------------------------------------------------------
  {
    id: "penfold-plumbing-and-heating",
    name: "R. Penfold Plumbing & Heating",
    schemaType: "Plumber",
    category: "Trades",
    description:
      "Plumbing, bathrooms and oil-fired boiler servicing across the Chase Valley. Emergency call-outs for burst pipes in freezing weather.",
    address: address("18 Meadow Way", "meadow-way"),
    geo: geoNear("meadow-way", -20, 30),
    telephone: "07700 900111",
    email: "penfoldplumbing@example.com",
    openingHours: [hours(MON_FRI, "08:00", "17:00")],
  },
  {
    id: "sparks-and-son-electrical",
    name: "Sparks & Son Electrical",
    schemaType: "Electrician",
    category: "Trades",
    description:
      "Qualified electricians for rewiring, fuse boards, EV chargers and electrical safety certificates for landlords.",
    address: address("9 Kingsmead", "kingsmead"),
    geo: geoNear("kingsmead", 15, -20),
    telephone: "07700 900112",
    email: "sparksandson@example.com",
    url: "https://example.org/sparks-and-son",
    openingHours: [hours(MON_FRI, "08:00", "17:30"), hours(["Saturday"], "09:00", "12:00")],
  },
  {
    id: "carter-and-webb-decorators",
    name: "Carter & Webb Decorators",
    schemaType: "HousePainter",
    category: "Trades",
    description:
      "Interior and exterior decorating, including lime-washing for listed cottages and sash window painting. Free quotes within the parish.",
    address: address("27 Back Lane", "back-lane"),
    geo: geoNear("back-lane", -12, -40),
    telephone: "07700 900113",
    email: "carterwebb@example.org",
    openingHours: [hours(MON_FRI, "08:00", "17:00")],
  },
  {
    id: "keyline-locksmiths",
    name: "Keyline Locksmiths",
    schemaType: "Locksmith",
    category: "Trades",
    description: "Lock changes, uPVC door repairs and safe opening. Twenty-four-hour call-out if you are locked out.",
    address: address("4 Orchard Close", "orchard-close"),
    geo: geoNear("orchard-close", 10, 15),
    telephone: "07700 900114",
    email: "keyline@example.com",
    openingHours: [hours(EVERY_DAY, "00:00", "23:59")],
  },
  {
    id: "downland-roofing-and-thatching",
    name: "Downland Roofing & Thatching",
    schemaType: "RoofingContractor",
    category: "Trades",
    description:
      "Slate, tile and thatch repairs, including combed wheat reed and ridge work on the village's thatched cottages. Storm damage assessed the same week.",
    address: address("Yard 3, Station Road", "station-road"),
    geo: geoNear("station-road", 30, 60),
    telephone: "01632 960133",
    email: "downlandroofing@example.com",
    url: "https://example.org/downland-roofing",
    openingHours: [hours(MON_FRI, "07:30", "16:30")],
  },
  {
    id: "hartley-building-services",
    name: "Hartley Building Services",
    schemaType: "GeneralContractor",
    category: "Trades",
    description:
      "Extensions, barn conversions and flint and brick repairs by a third-generation village builder. Registered with the conservation area scheme.",
    address: address("Hartley's Yard, Pound Lane", "pound-lane"),
    geo: geoNear("pound-lane", 20, 45),
    telephone: "01632 960134",
    email: "hartleybuilders@example.org",
    openingHours: [hours(MON_FRI, "07:30", "17:00")],
  },
  {
    id: "chase-valley-heating",
    name: "Chase Valley Heating",
    schemaType: "HVACBusiness",
    category: "Trades",
    description:
      "Heat pump installation and servicing for off-grid homes, with advice on grants. Ground and air source systems.",
    address: address("52 Mill Road", "mill-road"),
    geo: geoNear("mill-road", -20, -60),
    telephone: "01632 960135",
    email: "heating.chasevalley@example.com",
    url: "https://example.org/chase-valley-heating",
    openingHours: [hours(MON_FRI, "08:30", "17:00")],
  },

  // --- Accommodation ----------------------------------------------------------------------------------------
  {
    id: "the-old-rectory",
    name: "The Old Rectory",
    schemaType: "BedAndBreakfast",
    category: "Accommodation",
    description:
      "Three en-suite rooms in a Georgian rectory beside St Mary's Church, with breakfasts of local eggs and bacon. Dogs welcome in the garden room.",
    address: address("The Old Rectory, Church Lane", "church-lane"),
    geo: geoNear("st-marys-church", 30, 35),
    telephone: "01632 960136",
    email: "oldrectory@example.org",
    url: "https://example.org/the-old-rectory",
    openingHours: [hours(EVERY_DAY, "08:00", "21:00")],
    sameAs: ["https://example.org/social/the-old-rectory"],
  },
  {
    id: "orchard-house",
    name: "Orchard House",
    schemaType: "BedAndBreakfast",
    category: "Accommodation",
    description:
      "Family-run bed and breakfast with two rooms overlooking a cider-apple orchard. Packed lunches for walkers and secure bike storage.",
    address: address("12 Orchard Close", "orchard-close"),
    geo: geoNear("orchard-close", 25, -30),
    telephone: "01632 960137",
    email: "orchardhouse@example.com",
    openingHours: [hours(EVERY_DAY, "08:00", "20:00")],
  },
  {
    id: "wrenford-manor-hotel",
    name: "Wrenford Manor Hotel",
    schemaType: "Hotel",
    category: "Accommodation",
    description:
      "Country house hotel with eighteen rooms at the foot of the downs. Its restaurant and the Willowbank Day Spa are open to non-residents.",
    address: address("Wrenford Manor, Downs Road", "downs-road"),
    geo: geoNear("downs-road", 80, 30),
    telephone: "01632 960138",
    email: "stay.wrenfordmanor@example.com",
    url: "https://example.org/wrenford-manor-hotel",
    openingHours: [hours(EVERY_DAY, "00:00", "23:59")],
    sameAs: ["https://example.org/social/wrenford-manor-hotel"],
  },
  {
    id: "hanging-wood-campsite",
    name: "Hanging Wood Campsite",
    schemaType: "Campground",
    category: "Accommodation",
    description:
      "Quiet tents-only campsite with a composting toilet, hot showers and campfires in fire pits. Open from Easter to the end of September.",
    address: address("Hanging Wood Farm, Downs Road", "downs-road"),
    geo: geoNear("hanging-wood-stile", -40, -80),
    telephone: "01632 960139",
    email: "camping.hangingwood@example.com",
    openingHours: [hours(EVERY_DAY, "09:00", "20:00")],
  },

  // --- Services ---------------------------------------------------------------------------------------------
  {
    id: "fairweather-and-co",
    name: "Fairweather & Co",
    schemaType: "AccountingService",
    category: "Services",
    description:
      "Chartered accountants for farms, small businesses and self-assessment returns, working from the old bank building. Evening appointments in January.",
    address: address("Old Bank House, 1 High Street", "high-street"),
    geo: geoNear("high-street", 8, -75),
    telephone: "01632 960140",
    email: "fairweather@example.com",
    url: "https://example.org/fairweather-and-co",
    openingHours: [hours(MON_FRI, "09:00", "17:00")],
  },
  {
    id: "greaves-and-pike",
    name: "Greaves & Pike Solicitors",
    schemaType: "LegalService",
    category: "Services",
    description:
      "Wills, probate, conveyancing and agricultural tenancies. Home visits for clients who cannot come into the office.",
    address: address("25 High Street", "high-street"),
    geo: geoNear("high-street", 11, 72),
    telephone: "01632 960141",
    email: "greavespike@example.org",
    openingHours: [hours(MON_FRI, "09:00", "17:00")],
  },
  {
    id: "chase-valley-estates",
    name: "Chase Valley Estates",
    schemaType: "RealEstateAgent",
    category: "Services",
    description:
      "Sales and lettings of village homes and cottages across the valley, with a property window opposite the Plough.",
    address: address("22 High Street", "high-street"),
    geo: geoNear("high-street", -10, 52),
    telephone: "01632 960142",
    email: "homes.chasevalleyestates@example.com",
    url: "https://example.org/chase-valley-estates",
    openingHours: [hours(MON_FRI, "09:00", "17:30"), hours(["Saturday"], "09:00", "13:00")],
  },
  {
    id: "wrenford-launderette",
    name: "Wrenford Launderette & Dry Cleaners",
    schemaType: "DryCleaningOrLaundry",
    category: "Services",
    description:
      "Self-service washers and large dryers for duvets and horse rugs, plus a dry-cleaning collection service twice a week.",
    address: address("13 Chapel Street", "chapel-street"),
    geo: geoNear("chapel-street", 8, 12),
    telephone: "01632 960143",
    openingHours: [hours(EVERY_DAY, "07:00", "21:00")],
  },
  {
    id: "hawkins-rural-insurance",
    name: "Hawkins Rural Insurance",
    schemaType: "InsuranceAgency",
    category: "Services",
    description:
      "Independent broker for home, farm, equine and thatched-property insurance. Free policy reviews at the village hall every spring.",
    address: address("2 Station Road", "station-road"),
    geo: geoNear("station-road", -25, -30),
    telephone: "01632 960144",
    email: "hawkins@example.org",
    openingHours: [hours(MON_FRI, "09:00", "17:00")],
  },

  // --- Community --------------------------------------------------------------------------------------------
  {
    id: "wrenford-post-office",
    name: "Wrenford St Mary Post Office",
    schemaType: "PostOffice",
    category: "Community",
    description:
      "Post Office counter for parcels, banking, bill payments and pension collection. The 24 bus to town stops right outside.",
    address: address("10 High Street", "high-street"),
    geo: geoNear("post-office-bus-stop", -8, -3),
    telephone: "01632 960145",
    openingHours: [hours(MON_FRI, "09:00", "17:30"), hours(["Saturday"], "09:00", "12:30")],
  },
  {
    id: "little-acorns-nursery",
    name: "Little Acorns Nursery",
    schemaType: "ChildCare",
    category: "Community",
    description:
      "Pre-school and day nursery for children aged two to five, next to the primary school, with forest school mornings in Hanging Wood. Funded places available.",
    address: address("The Old Schoolhouse, School Lane", "school-lane"),
    geo: geoNear("primary-school", -20, 25),
    telephone: "01632 960146",
    email: "littleacorns@example.org",
    url: "https://example.org/little-acorns-nursery",
    openingHours: [hours(MON_FRI, "08:00", "18:00")],
  },
  {
    id: "wrenford-community-library",
    name: "Wrenford Community Library",
    schemaType: "Library",
    category: "Community",
    description:
      "Volunteer-run library in the village hall with large-print books, a seed library and free computer help on Thursday evenings.",
    address: address("Village Hall, The Green", "the-green"),
    geo: geoNear("village-hall", 5, -6),
    telephone: "01632 960147",
    email: "library@example.org",
    openingHours: [
      hours(["Tuesday"], "14:00", "17:00"),
      hours(["Thursday"], "10:00", "12:00"),
      hours(["Thursday"], "17:00", "19:00"),
      hours(["Saturday"], "10:00", "12:00"),
    ],
  },

  // --- Sport and leisure ------------------------------------------------------------------------------------
  {
    id: "wrenford-cricket-club",
    name: "Wrenford St Mary Cricket Club",
    schemaType: "SportsClub",
    category: "Sport and leisure",
    description:
      "Two Saturday league sides, a Sunday friendly XI and junior coaching on the recreation ground. Nets on Wednesday evenings from April.",
    address: address("Recreation Ground, Meadow Way", "meadow-way"),
    geo: geoNear("recreation-ground", -40, 10),
    email: "cricket@example.org",
    url: "https://example.org/wrenford-cricket-club",
    openingHours: [hours(["Wednesday"], "18:00", "20:30"), hours(["Saturday", "Sunday"], "13:00", "19:00")],
    sameAs: ["https://example.org/social/wrenford-cricket-club"],
  },
  {
    id: "wrenford-tennis-club",
    name: "Wrenford Tennis Club",
    schemaType: "TennisComplex",
    category: "Sport and leisure",
    description:
      "Two floodlit hard courts beside the pavilion, with pay-and-play booking for non-members and club sessions on Sunday mornings.",
    address: address("Recreation Ground, Meadow Way", "meadow-way"),
    geo: geoNear("recreation-ground", -25, 55),
    email: "tennis@example.org",
    openingHours: [hours(EVERY_DAY, "08:00", "21:00")],
  },
  {
    id: "the-old-forge-gym",
    name: "The Old Forge Gym",
    schemaType: "ExerciseGym",
    category: "Sport and leisure",
    description:
      "Small gym with free weights, rowing machines and yoga and Pilates classes in the loft. Pay-as-you-go sessions for visitors.",
    address: address("5 Forge Lane", "forge-lane"),
    geo: geoNear("forge-lane", -10, 20),
    telephone: "01632 960148",
    email: "oldforgegym@example.com",
    openingHours: [hours(MON_FRI, "06:00", "21:00"), hours(["Saturday", "Sunday"], "08:00", "14:00")],
  },

  // --- Motoring ---------------------------------------------------------------------------------------------
  {
    id: "station-garage",
    name: "Station Garage",
    schemaType: "AutoRepair",
    category: "Motoring",
    description:
      "MOTs, servicing, tyres and agricultural vehicle repairs. Courtesy car for village customers if booked in advance.",
    address: address("6 Station Road", "station-road"),
    geo: geoNear("station-road", -10, 25),
    telephone: "01632 960149",
    email: "stationgarage@example.org",
    openingHours: [hours(MON_FRI, "08:00", "17:30"), hours(["Saturday"], "08:30", "12:00")],
  },
  {
    id: "downs-motor-services",
    name: "Downs Motor Services",
    schemaType: "AutoRepair",
    category: "Motoring",
    description:
      "Independent mechanic specialising in older Land Rovers and classic cars, with welding and restoration work.",
    address: address("Unit 4, Downs Road", "downs-road"),
    geo: geoNear("downs-road", -30, -35),
    telephone: "07700 900115",
    email: "downsmotors@example.com",
    openingHours: [hours(MON_FRI, "08:30", "17:30")],
  },
  {
    id: "wrenford-filling-station",
    name: "Wrenford Filling Station",
    schemaType: "GasStation",
    category: "Motoring",
    description:
      "The only fuel in the valley for seven miles: petrol, diesel, red diesel for farms, and an air line and jet wash on the forecourt.",
    address: address("West End Garage, West End", "west-end"),
    geo: geoNear("west-end", 10, -90),
    telephone: "01632 960150",
    openingHours: [hours(MON_SAT, "06:30", "21:00"), hours(["Sunday"], "08:00", "18:00")],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Report categories (Open311 services)
// ---------------------------------------------------------------------------------------------------------------

const COUNCIL_HIGHWAYS = {
  departmentName: "Wrenvale District Council – Highways",
  departmentEmail: "wrenvale-highways@example.org",
};
const COUNCIL_LIGHTING = {
  departmentName: "Wrenvale District Council – Street Lighting",
  departmentEmail: "wrenvale-streetlighting@example.org",
};
const COUNCIL_STREET_SCENE = {
  departmentName: "Wrenvale District Council – Waste and Street Scene",
  departmentEmail: "wrenvale-streetscene@example.org",
};
const COUNCIL_ENVIRONMENTAL_HEALTH = {
  departmentName: "Wrenvale District Council – Environmental Health",
  departmentEmail: "wrenvale-envhealth@example.org",
};
const COUNCIL_COUNTRYSIDE = {
  departmentName: "Wrenvale District Council – Countryside and Rights of Way",
  departmentEmail: "wrenvale-rightsofway@example.org",
};
const COUNCIL_TRANSPORT = {
  departmentName: "Wrenvale District Council – Passenger Transport",
  departmentEmail: "wrenvale-transport@example.org",
};
const COUNCIL_PARKING = {
  departmentName: "Wrenvale District Council – Parking and Enforcement",
  departmentEmail: "wrenvale-parking@example.org",
};
/** Handled by the parish volunteers on the platform itself, not forwarded to the council. */
const COMMUNITY = { departmentName: null, departmentEmail: null };

export const categories: DemoCategory[] = [
  // --- Roads and pavements ----------------------------------------------------------------------------------
  {
    code: "pothole",
    name: "Pothole",
    description: "A hole or broken surface in a road, lane or pavement.",
    group: "Roads and pavements",
    keywords: ["pothole", "hole", "road surface", "crater", "tarmac", "sunken"],
    ...COUNCIL_HIGHWAYS,
    attributes: [
      {
        code: "road_or_pavement",
        datatype: "singlevaluelist",
        variable: true,
        required: true,
        order: 1,
        description: "Is it in the road or the pavement?",
        values: [
          { key: "road", name: "In the road" },
          { key: "pavement", name: "In the pavement" },
          { key: "verge", name: "At the edge of the road or verge" },
          { key: "cycle_path", name: "On the railway path or a cycle path" },
        ],
      },
      {
        code: "width_cm",
        datatype: "number",
        variable: true,
        required: false,
        order: 2,
        description: "Roughly how wide is it, in centimetres?",
        datatypeDescription: "A rough estimate is fine, e.g. 30 for the width of a dinner plate.",
      },
    ],
  },
  {
    code: "pavement",
    name: "Broken or uneven pavement",
    description: "Cracked, raised or missing paving slabs and kerbs that could trip someone up.",
    group: "Roads and pavements",
    keywords: ["pavement", "footway", "slab", "kerb", "trip hazard", "uneven"],
    ...COUNCIL_HIGHWAYS,
    attributes: [
      {
        code: "pavement_problem",
        datatype: "singlevaluelist",
        variable: true,
        required: true,
        order: 1,
        description: "What is wrong with the pavement?",
        values: [
          { key: "raised_slab", name: "Raised or rocking slab" },
          { key: "cracked", name: "Cracked or broken surface" },
          { key: "missing_kerb", name: "Missing or loose kerb stone" },
          { key: "tree_roots", name: "Lifted by tree roots" },
          { key: "sunken", name: "Sunken area that holds water" },
        ],
      },
    ],
  },
  {
    code: "road_sign",
    name: "Damaged road sign",
    description: "A road sign or fingerpost that is knocked down, bent, faded, hidden or missing.",
    group: "Roads and pavements",
    keywords: ["sign", "road sign", "fingerpost", "signpost", "bollard"],
    ...COUNCIL_HIGHWAYS,
    attributes: [
      {
        code: "sign_problem",
        datatype: "singlevaluelist",
        variable: true,
        required: true,
        order: 1,
        description: "What has happened to the sign?",
        values: [
          { key: "knocked_down", name: "Knocked down" },
          { key: "bent", name: "Bent or twisted" },
          { key: "faded", name: "Faded or unreadable" },
          { key: "obscured", name: "Hidden by vegetation" },
          { key: "missing", name: "Missing" },
        ],
      },
    ],
  },
  {
    code: "blocked_drain",
    name: "Blocked drain or flooding",
    description: "A blocked gully, ditch or culvert, or water standing on a road or path.",
    group: "Roads and pavements",
    keywords: ["drain", "gully", "flood", "flooding", "ditch", "culvert", "standing water", "ford"],
    ...COUNCIL_HIGHWAYS,
    attributes: [
      {
        code: "flood_notice",
        datatype: "string",
        variable: false,
        required: false,
        order: 1,
        description:
          "If water is entering a home or a road is impassable, call the council's 24-hour emergency line on 01632 960999 as well as reporting it here.",
      },
      {
        code: "water_on_road",
        datatype: "singlevaluelist",
        variable: true,
        required: true,
        order: 2,
        description: "Is there water on the road?",
        values: [
          { key: "no", name: "No, the drain is just blocked" },
          { key: "yes_passable", name: "Yes, but cars can get through" },
          { key: "yes_impassable", name: "Yes, the road is impassable" },
        ],
      },
      {
        code: "flooding_description",
        datatype: "text",
        variable: true,
        required: false,
        order: 3,
        description: "Describe the flooding",
        datatypeDescription: "How deep, how far it spreads and whether it happens every time it rains.",
      },
    ],
  },
  {
    code: "abandoned_vehicle",
    name: "Abandoned vehicle",
    description: "A vehicle that seems to have been left on a road or verge for a long time.",
    group: "Roads and pavements",
    keywords: ["abandoned", "car", "vehicle", "untaxed", "dumped car", "caravan"],
    ...COUNCIL_PARKING,
    attributes: [
      {
        code: "days_parked",
        datatype: "number",
        variable: true,
        required: false,
        order: 1,
        description: "For how many days has it been there, roughly?",
      },
      {
        code: "vehicle_condition",
        datatype: "multivaluelist",
        variable: true,
        required: false,
        order: 2,
        description: "What condition is it in?",
        values: [
          { key: "flat_tyres", name: "Flat tyres" },
          { key: "broken_windows", name: "Broken windows" },
          { key: "no_tax", name: "No valid tax" },
          { key: "leaking", name: "Leaking fuel or oil" },
          { key: "burnt_out", name: "Burnt out" },
        ],
      },
    ],
  },

  // --- Streets and lighting ---------------------------------------------------------------------------------
  {
    code: "streetlight",
    name: "Street light",
    description: "A street light that is out, flickering, on during the day or damaged.",
    group: "Streets and lighting",
    keywords: ["street light", "streetlight", "lamp", "lamp post", "lighting", "dark"],
    ...COUNCIL_LIGHTING,
    attributes: [
      {
        code: "danger_notice",
        datatype: "string",
        variable: false,
        required: false,
        order: 1,
        description:
          "If a lamp post is leaning dangerously or has exposed wires, keep away and call the council's emergency line on 01632 960999.",
      },
      {
        code: "fault",
        datatype: "singlevaluelist",
        variable: true,
        required: true,
        order: 2,
        description: "Is the light flickering or out?",
        values: [
          { key: "out", name: "Out" },
          { key: "flickering", name: "Flickering" },
          { key: "on_in_day", name: "On during the day" },
          { key: "damaged", name: "Lamp post or lantern damaged" },
        ],
      },
      {
        code: "lamp_post_number",
        datatype: "string",
        variable: true,
        required: false,
        order: 3,
        description: "Lamp post number, if visible",
        datatypeDescription: "The number on the plate on the post, e.g. WSM 14.",
      },
    ],
  },
  {
    code: "bus_shelter",
    name: "Bus shelter",
    description: "Broken glass, damage or a missing timetable at a bus stop or shelter.",
    group: "Streets and lighting",
    keywords: ["bus", "bus stop", "shelter", "timetable", "glass"],
    ...COUNCIL_TRANSPORT,
    attributes: [],
  },

  // --- Environment and cleanliness --------------------------------------------------------------------------
  {
    code: "fly_tipping",
    name: "Fly-tipping",
    description: "Rubbish illegally dumped on a road, verge, lay-by, footpath or field gateway.",
    group: "Environment and cleanliness",
    keywords: ["fly-tipping", "fly tipping", "dumped", "rubbish", "waste", "tipping", "mattress"],
    ...COUNCIL_STREET_SCENE,
    attributes: [
      {
        code: "hazard_notice",
        datatype: "string",
        variable: false,
        required: false,
        order: 1,
        description:
          "Please don't touch or open dumped waste: it can contain sharp objects, chemicals or asbestos, and may hold evidence of who dumped it.",
      },
      {
        code: "waste_types",
        datatype: "multivaluelist",
        variable: true,
        required: true,
        order: 2,
        description: "What has been dumped?",
        values: [
          { key: "household", name: "Household rubbish or bin bags" },
          { key: "garden", name: "Garden waste" },
          { key: "building", name: "Building rubble or plasterboard" },
          { key: "furniture", name: "Furniture or mattresses" },
          { key: "white_goods", name: "Fridges, freezers or washing machines" },
          { key: "tyres", name: "Tyres" },
          { key: "asbestos_suspected", name: "Possible asbestos sheets" },
          { key: "other", name: "Something else" },
        ],
      },
      {
        code: "amount",
        datatype: "singlevaluelist",
        variable: true,
        required: false,
        order: 3,
        description: "How much is there?",
        values: [
          { key: "single_item", name: "A single item" },
          { key: "car_boot", name: "A car boot load" },
          { key: "van_load", name: "A small van load" },
          { key: "lorry_load", name: "A lorry load or more" },
        ],
      },
      {
        code: "first_noticed",
        datatype: "datetime",
        variable: true,
        required: false,
        order: 4,
        description: "When did you first notice it?",
      },
    ],
  },
  {
    code: "graffiti",
    name: "Graffiti",
    description: "Graffiti or fly-posting on public walls, bridges, signs or shelters.",
    group: "Environment and cleanliness",
    keywords: ["graffiti", "tagging", "spray paint", "vandalism", "fly-posting"],
    ...COUNCIL_STREET_SCENE,
    attributes: [
      {
        code: "offensive",
        datatype: "singlevaluelist",
        variable: true,
        required: true,
        order: 1,
        description: "Is the graffiti offensive?",
        datatypeDescription: "Offensive or racist graffiti is removed within one working day.",
        values: [
          { key: "yes", name: "Yes" },
          { key: "no", name: "No" },
        ],
      },
      {
        code: "surface",
        datatype: "singlevaluelist",
        variable: true,
        required: false,
        order: 2,
        description: "What is it on?",
        values: [
          { key: "wall", name: "A wall or building" },
          { key: "bridge", name: "A bridge" },
          { key: "sign", name: "A sign" },
          { key: "bus_shelter", name: "A bus shelter" },
          { key: "other", name: "Something else" },
        ],
      },
    ],
  },
  {
    code: "dog_fouling",
    name: "Dog fouling",
    description: "Dog mess left on pavements, paths, verges or the playing field.",
    group: "Environment and cleanliness",
    keywords: ["dog", "dog mess", "dog poo", "fouling", "poop"],
    ...COUNCIL_ENVIRONMENTAL_HEALTH,
    attributes: [],
  },
  {
    code: "litter_bin",
    name: "Litter or dog bin full or damaged",
    description: "A public litter bin or dog waste bin that is overflowing, broken or missing.",
    group: "Environment and cleanliness",
    keywords: ["bin", "litter bin", "dog bin", "overflowing", "litter", "rubbish bin"],
    ...COUNCIL_STREET_SCENE,
    attributes: [
      {
        code: "bin_problem",
        datatype: "singlevaluelist",
        variable: true,
        required: true,
        order: 1,
        description: "What is the problem with the bin?",
        values: [
          { key: "full", name: "Full or overflowing" },
          { key: "damaged", name: "Damaged" },
          { key: "missing", name: "Missing" },
        ],
      },
      {
        code: "bin_type",
        datatype: "singlevaluelist",
        variable: true,
        required: false,
        order: 2,
        description: "What kind of bin is it?",
        values: [
          { key: "litter", name: "Litter bin" },
          { key: "dog_waste", name: "Dog waste bin (red)" },
        ],
      },
    ],
  },

  // --- Countryside and rights of way ------------------------------------------------------------------------
  {
    code: "overgrown_vegetation",
    name: "Overgrown hedges and vegetation",
    description: "Hedges, trees or verges growing over a pavement, road, sign or street light.",
    group: "Countryside and rights of way",
    keywords: ["hedge", "overgrown", "vegetation", "tree", "branches", "brambles", "nettles", "verge"],
    ...COUNCIL_HIGHWAYS,
    attributes: [
      {
        code: "blocking",
        datatype: "multivaluelist",
        variable: true,
        required: true,
        order: 1,
        description: "What is it blocking?",
        values: [
          { key: "pavement", name: "The pavement" },
          { key: "sightline", name: "Drivers' view at a junction or bend" },
          { key: "road_sign", name: "A road sign" },
          { key: "streetlight", name: "A street light" },
          { key: "footpath", name: "A public footpath" },
        ],
      },
    ],
  },
  {
    code: "right_of_way",
    name: "Public rights of way",
    description: "Problems on public footpaths and bridleways: broken stiles, blocked paths, missing waymarks.",
    group: "Countryside and rights of way",
    keywords: ["footpath", "bridleway", "stile", "gate", "waymark", "right of way", "path", "walk"],
    ...COUNCIL_COUNTRYSIDE,
    attributes: [
      {
        code: "path_number",
        datatype: "string",
        variable: true,
        required: false,
        order: 1,
        description: "Path number, if you know it",
        datatypeDescription: "Shown on the waymark disc or the parish footpath map, e.g. Footpath 12.",
      },
      {
        code: "problem",
        datatype: "multivaluelist",
        variable: true,
        required: true,
        order: 2,
        description: "What is the problem?",
        values: [
          { key: "stile_gate", name: "Broken stile or gate" },
          { key: "overgrown", name: "Overgrown" },
          { key: "obstructed", name: "Blocked by a fence, crops or an obstruction" },
          { key: "waymark", name: "Missing or damaged waymark" },
          { key: "bridge", name: "Damaged footbridge" },
          { key: "surface", name: "Muddy or eroded surface" },
          { key: "livestock", name: "Worrying livestock, e.g. a bull" },
        ],
      },
    ],
  },

  // --- Parks and open spaces (community-handled) ------------------------------------------------------------
  {
    code: "play_area",
    name: "Village green and play area",
    description:
      "Broken equipment, damaged fencing or other problems on the village green and the recreation ground play area.",
    group: "Parks and open spaces",
    keywords: ["play area", "playground", "swings", "slide", "village green", "recreation ground", "rec"],
    ...COMMUNITY,
    attributes: [
      {
        code: "safety_notice",
        datatype: "text",
        variable: false,
        required: false,
        order: 1,
        description:
          "The play area is looked after by parish volunteers. If equipment is dangerous, please tell any parent nearby and, if you can, tape it off; the volunteers check reports every evening.",
      },
      {
        code: "equipment",
        datatype: "singlevaluelist",
        variable: true,
        required: true,
        order: 2,
        description: "Which equipment or feature is affected?",
        values: [
          { key: "swings", name: "Swings" },
          { key: "slide", name: "Slide" },
          { key: "climbing_frame", name: "Climbing frame" },
          { key: "roundabout", name: "Roundabout" },
          { key: "see_saw", name: "See-saw" },
          { key: "fencing_gate", name: "Fencing or gate" },
          { key: "surfacing", name: "Safety surfacing" },
          { key: "other", name: "Something else" },
        ],
      },
    ],
  },
  {
    code: "bench_noticeboard",
    name: "Benches, noticeboards and planters",
    description: "Damage to the parish benches, noticeboards, planters and the defibrillator cabinet.",
    group: "Parks and open spaces",
    keywords: ["bench", "seat", "noticeboard", "planter", "defibrillator", "phone box"],
    ...COMMUNITY,
    attributes: [
      {
        code: "item",
        datatype: "singlevaluelist",
        variable: true,
        required: false,
        order: 1,
        description: "What is damaged?",
        values: [
          { key: "bench", name: "Bench" },
          { key: "noticeboard", name: "Noticeboard" },
          { key: "planter", name: "Planter" },
          { key: "defibrillator", name: "Defibrillator cabinet" },
        ],
      },
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Councillors
// ---------------------------------------------------------------------------------------------------------------

export const councillors: DemoCouncillor[] = [
  {
    id: "margaret-ashdown",
    name: "Margaret Ashdown",
    role: "Parish councillor (chair)",
    ward: "Wrenford St Mary – Village ward",
    party: null,
    email: "cllr.ashdown@example.org",
    phone: "01632 960401",
    surgery: "First Saturday of the month, 10:00–12:00, committee room at the village hall.",
    responsibilities: ["Chair of the parish council", "Planning applications", "Village hall liaison"],
  },
  {
    id: "tom-okafor",
    name: "Tom Okafor",
    role: "Parish councillor (vice-chair)",
    ward: "Wrenford St Mary – Village ward",
    party: null,
    email: "cllr.okafor@example.org",
    phone: "07700 900402",
    surgery: "Drop in at Café Lumière, Wednesdays 08:00–09:00.",
    responsibilities: ["Highways and footpaths", "Community Speed Watch", "Street lighting"],
  },
  {
    id: "priya-raman",
    name: "Priya Raman",
    role: "Parish councillor",
    ward: "Wrenford St Mary – Village ward",
    party: null,
    email: "cllr.raman@example.org",
    phone: "07700 900403",
    surgery: null,
    responsibilities: ["Village green and play area", "Allotments", "Tree warden liaison", "Wildflower meadow"],
  },
  {
    id: "gareth-lloyd",
    name: "Gareth Lloyd",
    role: "Parish councillor",
    ward: "Wrenford St Mary – Sheepwash ward",
    party: null,
    email: "cllr.lloyd@example.org",
    phone: "01632 960404",
    surgery: "By appointment; phone or email to arrange.",
    responsibilities: ["Finance", "Flood warden", "Community emergency plan"],
  },
  {
    id: "helen-fairbrother",
    name: "Helen Fairbrother",
    role: "District councillor",
    ward: "Chase Valley",
    party: "Liberal Democrats",
    email: "helen.fairbrother@example.org",
    phone: "01632 960405",
    surgery: "Second Thursday of the month, 18:00–19:30, Wrenford Community Library.",
    responsibilities: ["Planning committee member", "Waste and recycling", "Rural transport"],
  },
  {
    id: "david-marchant",
    name: "David Marchant",
    role: "District councillor",
    ward: "Chase Valley",
    party: "Conservative",
    email: "david.marchant@example.org",
    phone: "07700 900406",
    surgery: "Last Friday of the month, 10:00–11:30, village hall.",
    responsibilities: ["Licensing committee member", "Highways liaison with the council", "Rural businesses"],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Community projects
// ---------------------------------------------------------------------------------------------------------------

export const projects: DemoProject[] = [
  {
    id: "village-green-wildflower-meadow",
    title: "Village green wildflower meadow",
    summary: "Turning the far corner of the village green into a wildflower meadow for pollinators.",
    body: [
      "Since spring 2025 the strip of the village green between the war memorial and the brook has been left uncut from April to August. Volunteers scarified the turf, sowed yellow rattle to weaken the grass, and plug-planted ox-eye daisies, knapweed and bird's-foot trefoil grown at the primary school.",
      "The first summer brought common blue butterflies and a lot of questions, so we added a mown path through the middle and an information board made by Year 5. The rest of the green is still cut as usual for football, the fête and picnics.",
      "We cut and rake the meadow once a year in late August and take the hay away so that the soil stays poor. Work parties meet on the last Sunday of the month at 10:00 by the war memorial; gloves and tools are provided, and cake is not optional.",
    ].join("\n\n"),
    status: "active",
    startedOn: "2025-03-15",
    lead: "Cllr Priya Raman with the Wrenford Wildlife Group",
    roles: ["Work party helper (last Sunday of the month)", "Seed collector"],
    updates: [
      {
        title: "Yellow rattle is taking hold",
        body: "The survey in June found yellow rattle across most of the meadow strip, and the grass is noticeably thinner. We counted 14 kinds of flowering plant, up from 5 last year.\n\nThanks to everyone who came to the plug-planting mornings.",
        daysAgo: 150,
      },
      {
        title: "Annual cut and rake done",
        body: "Twenty-two volunteers cut and raked the meadow over two Sundays, and the hay went to a smallholding on Downs Road. Next job: collecting seed from the knapweed for the school to grow on.\n\nThe next work party is on the last Sunday of the month at 10:00 by the war memorial.",
        daysAgo: 60,
      },
    ],
  },
  {
    id: "community-speed-watch",
    title: "Community Speed Watch",
    summary: "Volunteers with a speed detection device on Station Road and the High Street.",
    body: [
      "Residents have worried for years about traffic cutting through the village to avoid the main road, especially past the primary school at drop-off time. In June 2025 the parish council joined the Community Speed Watch scheme run with the local police.",
      "Trained volunteers stand in groups of three at approved sites on Station Road and the High Street, note the registration of vehicles going well over the 30 mph limit, and pass them to the police, who send advisory letters. Repeat offenders get a visit.",
      "We publish the monthly numbers here. Sessions last an hour and we need at least three people each time, so more volunteers mean more sessions. Training takes one evening.",
    ].join("\n\n"),
    status: "active",
    startedOn: "2025-06-02",
    lead: "Cllr Tom Okafor",
    roles: ["Speed Watch volunteer"],
    updates: [
      {
        title: "Last month's numbers",
        body: "Six one-hour sessions on Station Road and the High Street: 1,184 vehicles passed, 31 were reported to the police for going over 36 mph, and the fastest was recorded at 52 mph outside the school.\n\nWe would like to run a session at school drop-off time every week; for that we need three more trained volunteers.",
        daysAgo: 12,
      },
    ],
  },
  {
    id: "community-defibrillator",
    title: "Community defibrillator in the old phone box",
    summary: "A public-access defibrillator, installed in the red telephone box on the High Street.",
    body: [
      "The nearest ambulance station is over twenty minutes away, so in January 2025 the village raised £1,850 through a quiz night, the fête tombola and a grant from the district council to put a public-access defibrillator in the disused red phone box outside the Post Office.",
      "The cabinet is heated, unlocked and registered with the ambulance service, which will give a 999 caller directions to it. The device talks you through every step, so no training is needed to use it.",
      "Forty-two residents came to the free CPR and defibrillator awareness sessions in the village hall. Volunteers check the pads and battery every week; if you see a fault, please report it under 'Benches, noticeboards and planters'.",
    ].join("\n\n"),
    status: "completed",
    startedOn: "2025-01-20",
    lead: "Wrenford St Mary First Responders",
    roles: [],
    updates: [
      {
        title: "Defibrillator installed and registered",
        body: "The defibrillator is in the old phone box outside the Post Office, registered with the ambulance service and checked every week. Thank you to everyone who gave at the quiz night and the fête.",
        daysAgo: 300,
      },
    ],
  },
  {
    id: "repair-cafe",
    title: "Wrenford Repair Café",
    summary: "Bring broken things to the village hall and fix them with volunteer menders, over tea and cake.",
    body: [
      "The Repair Café meets on the second Saturday of every month from 10:00 to 13:00 in the village hall. Bring a broken toaster, lamp, bicycle, jumper or chair and one of our volunteers will try to fix it with you, free of charge.",
      "Since September 2025 we have repaired more than 150 items and saved around half a tonne of stuff from the tip. Electrical items are safety-tested before they go home, and Forge Hardware kindly supplies spare fuses, screws and glue at cost.",
      "We are always looking for more fixers, especially people who can sew, sharpen tools or repair laptops, and for people to serve tea. You do not need to be an expert: most repairs start with someone who is patient and curious.",
    ].join("\n\n"),
    status: "active",
    startedOn: "2025-09-13",
    lead: "The village hall committee",
    roles: ["Fixer", "Tea and cake"],
    updates: [
      {
        title: "150 repairs and counting",
        body: "Saturday's Repair Café saw 19 items brought in and 15 of them fixed, including a 1970s sewing machine and a child's balance bike. That takes us past 150 repairs since we started.\n\nWe are short of people who can mend clothes: if you can sew on a button, you can help.",
        daysAgo: 20,
      },
    ],
  },
  {
    id: "footpath-12-restoration",
    title: "Footpath 12 restoration to Hanging Wood",
    summary: "Replacing stiles with kissing gates and resurfacing the path from Station Road to Hanging Wood.",
    body: [
      "Footpath 12 is the village's favourite walk, up from the old station car park to Hanging Wood, but it has three rotten stiles that many people with dogs, children or stiff knees cannot climb, and the lower field turns to deep mud every winter.",
      "With the landowner's agreement and match funding from the council's rights of way team, the parish footpaths group plans to replace the stiles with self-closing kissing gates, lay a stone surface across the wettest stretch and put in new waymarks.",
      "Work is planned for spring 2026, after the ground nesting season survey. We will need volunteers for two weekends to carry materials and clear scrub; a sign-up sheet will go up in the Village Stores.",
    ].join("\n\n"),
    status: "planned",
    startedOn: "2026-04-06",
    lead: "Parish footpaths group",
    roles: ["Work weekend helper"],
    updates: [],
  },
  {
    id: "brook-lane-flood-wardens",
    title: "Brook Lane flood wardens",
    summary: "A small team of trained residents to watch the brook and warn neighbours when it rises.",
    body: [
      "The ford on Brook Lane floods several times every winter, and in bad years water has reached the cottages at the bottom of School Lane. The parish council wants to set up a team of flood wardens as part of the community emergency plan.",
      "Wardens would sign up for river level alerts, check the gullies and the culvert grille before heavy rain, put out the 'Road closed – ford' signs, and knock on the doors of neighbours who may need help. The parish will provide a flood store with sandbags, torches and high-visibility jackets.",
      "A training evening with the Environment Agency's local team is being arranged for early 2026. If you live near the brook and would like to take part, please contact the parish clerk.",
    ].join("\n\n"),
    status: "planned",
    startedOn: "2026-02-01",
    lead: "Cllr Gareth Lloyd",
    roles: ["Flood warden"],
    updates: [],
  },
  {
    id: "village-hall-solar-roof",
    title: "Village hall solar roof",
    summary: "Solar panels and a battery on the village hall, cutting its electricity bill by about half.",
    body: [
      "In May 2025 twenty-four solar panels and a battery were fitted to the south-facing roof of the village hall, paid for by a community share offer that raised £14,000 from 61 residents and a grant from the district council's climate fund.",
      "In the first six months the panels produced about 5,800 kWh, more than half of what the hall uses. Savings go into a fund that pays back shareholders first and then supports other energy projects in the village.",
      "A display in the hall lobby shows what the panels are producing today, and the Year 6 class used the figures for a maths project.",
    ].join("\n\n"),
    status: "completed",
    startedOn: "2025-05-12",
    lead: "Village hall trustees",
    roles: [],
    updates: [],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Ideas
// ---------------------------------------------------------------------------------------------------------------

export const ideas: DemoIdea[] = [
  {
    title: "A wildflower corner on the village green",
    description:
      "Could we stop mowing the far corner of the green by the brook and let it grow into a meadow? It would help bees and butterflies, save on mowing, and the school could help plant it.",
    category: "green-spaces",
    placeId: "village-green",
    locationText: "The corner of the green between the war memorial and the brook",
    status: "adopted",
    response:
      "Adopted: the parish council agreed to leave the strip uncut from April to August, and the Wrenford Wildlife Group is running it as a project. Follow its progress on the project page.",
    projectId: "village-green-wildflower-meadow",
    supports: 37,
    createdDaysAgo: 640,
    answeredDaysAgo: 620,
  },
  {
    title: "A monthly repair café in the village hall",
    description:
      "Lots of us have broken lamps, toasters and bikes in the shed. A monthly morning where people who can fix things help those who cannot would keep them out of the tip and be sociable too.",
    category: "facilities",
    placeId: "village-hall",
    locationText: null,
    status: "done",
    response:
      "Done: the village hall committee started the Repair Café in September 2025. It meets on the second Saturday of every month.",
    projectId: "repair-cafe",
    supports: 22,
    createdDaysAgo: 470,
    answeredDaysAgo: 440,
  },
  {
    title: "Bike racks outside the Village Stores",
    description:
      "People who cycle to the shop lean their bikes against the window or the bench. Two or three Sheffield stands on the wide bit of pavement would keep the way clear.",
    category: "roads-paths",
    placeId: "high-street",
    locationText: "Outside the Village Stores, High Street",
    status: "under-consideration",
    response:
      "The parish council has asked the council's highways team whether stands can go on the pavement there, and the Village Stores is happy with the idea. We will post the answer here.",
    projectId: null,
    supports: 9,
    createdDaysAgo: 45,
    answeredDaysAgo: 30,
  },
  {
    title: "Floodlights for evening football on the recreation ground",
    description:
      "The youth team cannot train after school from October to March. Floodlights on one half of the pitch would let them play until 8 pm.",
    category: "facilities",
    placeId: "recreation-ground",
    locationText: null,
    status: "not-taken-forward",
    response:
      "Not taken forward: the lights would shine into the houses on Meadow Way, and the cost of running them is more than the parish can carry. The school has offered its hall for winter training instead.",
    projectId: null,
    supports: 3,
    createdDaysAgo: 120,
    answeredDaysAgo: 95,
  },
  {
    title: "Fruit trees along the edge of the recreation ground",
    description:
      "A row of apple, pear and plum trees along the fence by Meadow Way, free for anyone to pick. Local varieties if we can find them.",
    category: "green-spaces",
    placeId: "recreation-ground",
    locationText: "Along the fence by Meadow Way",
    status: "open",
    response: null,
    projectId: null,
    supports: 14,
    createdDaysAgo: 9,
    answeredDaysAgo: null,
  },
  {
    title: "A summer fun run round the village",
    description:
      "A 5 km route round the lanes, with a shorter one for children, finishing on the green with the fête. Entry fees could go to the defibrillator fund.",
    category: "events",
    placeId: null,
    locationText: null,
    status: "open",
    response: null,
    projectId: null,
    supports: 6,
    createdDaysAgo: 4,
    answeredDaysAgo: null,
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Newsletter (the public archive; the demo has no subscribers, so nothing is ever mailed)
// ---------------------------------------------------------------------------------------------------------------

export const newsletterIssues: DemoNewsletterIssue[] = [
  {
    title: "Autumn news: meadow, Speed Watch and the Repair Café",
    body: [
      "## The meadow",
      "The wildflower corner of the green had its annual cut and rake: thank you to the twenty-two volunteers who came. Fourteen kinds of flowers this year, up from five.",
      "## Community Speed Watch",
      "Six sessions last month and 31 drivers reported to the police. We need three more volunteers to run a session at school drop-off time every week.",
      "## Repair Café",
      "Second Saturday of every month, 10:00 to 13:00 in the village hall. Bring something broken.",
    ].join("\n\n"),
    sentDaysAgo: 55,
  },
  {
    title: "Winter news: flood wardens wanted",
    body: [
      "## Brook Lane flood wardens",
      "The ford has flooded three times already this winter. The parish is looking for residents near the brook to become flood wardens: training with the Environment Agency is free and takes one evening. Sign up on the volunteer page.",
      "## Reports this month",
      "The blocked culvert by the ford is being cleared, the offensive graffiti on the village hall was removed within a day, and the pothole at the Post Office bus stop has been filled.",
      "- Report a problem at any time on this site.",
      "- Follow a report to hear when it changes.",
    ].join("\n\n"),
    sentDaysAgo: 8,
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Reports
// ---------------------------------------------------------------------------------------------------------------

export const reports: DemoReport[] = [
  {
    categoryCode: "pothole",
    title: "Deep pothole by the Post Office bus stop",
    description:
      "A deep pothole has opened up in the road right where the bus pulls in. Passengers stepping off the bus have to jump over it, and it fills with water when it rains.",
    placeId: "post-office-bus-stop",
    ...near("post-office-bus-stop", 3, 4),
    locationText: "In the road at the bus stop outside the Post Office, 10 High Street",
    attributes: { road_or_pavement: "road", width_cm: "45" },
    createdDaysAgo: 34,
    photos: ["pothole"],
    history: [
      { status: "investigating", daysAgo: 32, note: "Passed to the council's highways team." },
      {
        status: "action_scheduled",
        daysAgo: 20,
        note: "Inspected: it meets the council's intervention level. Repair booked for next week.",
      },
      { status: "fixed", daysAgo: 13, note: "Filled and sealed by the highways crew on Tuesday morning." },
    ],
  },
  {
    categoryCode: "pothole",
    title: "Pothole at the bus stop, High Street",
    description: "Large hole in the road at the bus stop. Nearly turned my ankle getting off the bus.",
    placeId: "post-office-bus-stop",
    ...near("post-office-bus-stop", 1, 6),
    locationText: "Bus stop outside the Post Office",
    attributes: { road_or_pavement: "road" },
    createdDaysAgo: 33,
    history: [
      {
        status: "duplicate",
        daysAgo: 32,
        note: "Thank you. This is the same pothole as an earlier report; updates will be posted there.",
      },
    ],
  },
  {
    categoryCode: "pothole",
    title: "Potholes along Mill Road near the Wheatsheaf",
    description:
      "Several potholes have appeared on the bend just past the Wheatsheaf. Cars are swerving onto the wrong side of the road to avoid them.",
    placeId: "mill-road",
    ...near("mill-road", -8, -45),
    locationText: "Mill Road, on the bend past the Wheatsheaf (no. 40)",
    attributes: { road_or_pavement: "road", width_cm: "30" },
    createdDaysAgo: 9,
    history: [],
  },
  {
    categoryCode: "pothole",
    title: "Broken road surface in Orchard Close",
    description:
      "The surface at the entrance to Orchard Close has broken up completely, with loose stones and a big hole by the drain.",
    placeId: "orchard-close",
    ...near("orchard-close", -20, 10),
    locationText: "Entrance to Orchard Close from Back Lane",
    attributes: { road_or_pavement: "road", width_cm: "80" },
    createdDaysAgo: 61,
    history: [
      { status: "investigating", daysAgo: 58, note: "Passed to the council's highways team." },
      {
        status: "not_responsible",
        daysAgo: 50,
        note: "This is a private road: Orchard Close was never adopted by the council, so repairs are the responsibility of the residents' management company. We have let them know about this report.",
      },
    ],
  },
  {
    categoryCode: "streetlight",
    title: "Street light out opposite the church gate",
    description:
      "The light opposite the lychgate has been out for over a week. That stretch of Church Lane is very dark on the way back from evensong.",
    placeId: "church-lane",
    ...near("st-marys-church", -6, 10),
    locationText: "Opposite the lychgate of St Mary's Church, Church Lane",
    attributes: { fault: "out", lamp_post_number: "WSM 14" },
    createdDaysAgo: 22,
    history: [
      { status: "investigating", daysAgo: 20, note: "Reported to the council's street lighting contractor." },
      {
        status: "action_scheduled",
        daysAgo: 15,
        note: "A new lantern is on order; the contractor will fit it on their next round.",
      },
      { status: "fixed", daysAgo: 6, note: "New LED lantern fitted and tested." },
    ],
  },
  {
    categoryCode: "streetlight",
    title: "Flickering street light on Vicarage Road",
    description:
      "The light outside number 8 flickers on and off all night and shines straight into the bedrooms opposite.",
    placeId: "vicarage-road",
    ...near("vicarage-road", 10, 25),
    locationText: "Outside 8 Vicarage Road",
    attributes: { fault: "flickering" },
    createdDaysAgo: 4,
    history: [],
  },
  {
    categoryCode: "streetlight",
    title: "Light on all day by the old station",
    description:
      "The street light at the entrance to the old station car park stays on all day. It was fixed once but is doing it again.",
    placeId: "old-station-car-park",
    ...near("old-station-car-park", -12, -8),
    locationText: "Entrance to the old station car park, Station Road",
    attributes: { fault: "on_in_day", lamp_post_number: "WSM 31" },
    createdDaysAgo: 47,
    history: [
      { status: "investigating", daysAgo: 45, note: "Reported to the street lighting contractor." },
      { status: "fixed", daysAgo: 38, note: "The photocell has been replaced." },
      { status: "open", daysAgo: 12, note: "Reopened: residents say the light is on during the day again." },
      {
        status: "investigating",
        daysAgo: 10,
        note: "The contractor has been asked to check the power supply as well as the photocell.",
      },
    ],
  },
  {
    categoryCode: "streetlight",
    title: "Lamp post hit by a vehicle on West End",
    description:
      "The lamp post by the filling station has been knocked and is leaning towards the road, with the door at the bottom hanging open.",
    placeId: "west-end",
    ...near("west-end", 4, -70),
    locationText: "West End, by the entrance to the filling station",
    attributes: { fault: "damaged" },
    createdDaysAgo: 8,
    history: [
      {
        status: "investigating",
        daysAgo: 8,
        note: "The council's emergency crew attended the same day and made the post safe.",
      },
      {
        status: "action_scheduled",
        daysAgo: 6,
        note: "A replacement column is booked to be installed within two weeks.",
      },
    ],
  },
  {
    categoryCode: "blocked_drain",
    title: "Ford impassable, water backing up along Brook Lane",
    description:
      "The culvert beside the ford is blocked with branches and the water is spreading along Brook Lane towards the cottages.",
    placeId: "brook-lane-ford",
    ...near("brook-lane-ford", 8, 6),
    locationText: "Ford on Brook Lane, upstream side of the culvert",
    attributes: {
      water_on_road: "yes_impassable",
      flooding_description:
        "About 40 cm deep across the ford and 30 metres up the lane. It happens after every heavy rain now because the grille in front of the culvert is blocked.",
    },
    createdDaysAgo: 18,
    photos: ["flood"],
    history: [
      {
        status: "investigating",
        daysAgo: 17,
        note: "Passed to the council's highways drainage team. Road closed signs put out by the flood warden.",
      },
      {
        status: "in_progress",
        daysAgo: 11,
        note: "Drainage crew on site clearing the grille and jetting the culvert; the work will take several days.",
      },
    ],
  },
  {
    categoryCode: "blocked_drain",
    title: "Blocked gully outside the school gates",
    description:
      "The drain by the school gates is full of leaves and a big puddle forms across the pavement at pick-up time.",
    placeId: "primary-school",
    ...near("primary-school", 6, -10),
    locationText: "School Lane, outside the primary school gates",
    attributes: { water_on_road: "yes_passable" },
    createdDaysAgo: 3,
    history: [],
  },
  {
    categoryCode: "fly_tipping",
    title: "Rubble and tyres dumped in Sheepwash Lane gateway",
    description:
      "A van load of broken plasterboard, rubble and about a dozen tyres has been tipped in the field gateway halfway down Sheepwash Lane.",
    placeId: "sheepwash-lane",
    ...near("sheepwash-lane", -20, -90),
    locationText: "Field gateway halfway down Sheepwash Lane",
    attributes: { waste_types: ["building", "tyres"], amount: "van_load" },
    createdDaysAgo: 27,
    history: [
      {
        status: "investigating",
        daysAgo: 26,
        note: "Passed to the council's enforcement team, who have found evidence in the waste and are following it up.",
      },
      { status: "action_scheduled", daysAgo: 21, note: "Clearance booked for later this week." },
      { status: "fixed", daysAgo: 19, note: "Cleared by the council's contractor." },
    ],
  },
  {
    categoryCode: "fly_tipping",
    title: "Bin bags and a sofa dumped at the old station car park",
    description:
      "Someone has left a sofa and about ten black bags in the corner of the old station car park. Foxes have ripped some of the bags open.",
    placeId: "old-station-car-park",
    ...near("old-station-car-park", 10, 20),
    locationText: "Far corner of the old station car park",
    attributes: { waste_types: ["household", "furniture"], amount: "car_boot" },
    createdDaysAgo: 6,
    photos: ["fly-tipping"],
    history: [],
  },
  {
    categoryCode: "fly_tipping",
    title: "Possible asbestos sheets in the Downs Road lay-by",
    description:
      "Several broken corrugated sheets that look like old asbestos roofing have been dumped in the lay-by at the top of Downs Road.",
    placeId: "downs-road",
    ...near("downs-road", 140, 40),
    locationText: "Lay-by at the top of Downs Road",
    attributes: { waste_types: ["building", "asbestos_suspected"], amount: "car_boot" },
    createdDaysAgo: 40,
    history: [
      { status: "investigating", daysAgo: 39, note: "Passed to the council; the lay-by has been coned off." },
      { status: "in_progress", daysAgo: 35, note: "A licensed asbestos contractor is removing the sheets." },
      { status: "fixed", daysAgo: 30, note: "Removed and disposed of safely." },
    ],
  },
  {
    categoryCode: "graffiti",
    title: "Graffiti on the old railway bridge",
    description: "Large tags sprayed across both sides of the brick bridge on Station Road.",
    placeId: "station-road",
    ...near("station-road", 20, 40),
    locationText: "Railway bridge on Station Road",
    attributes: { offensive: "no", surface: "bridge" },
    createdDaysAgo: 15,
    photos: ["graffiti"],
    history: [
      { status: "investigating", daysAgo: 14, note: "Passed to the council's street scene team." },
      {
        status: "action_scheduled",
        daysAgo: 8,
        note: "Cleaning booked with the graffiti team. The bridge is listed, so a specialist low-pressure method will be used.",
      },
    ],
  },
  {
    categoryCode: "graffiti",
    title: "Offensive graffiti on the village hall wall",
    description: "Offensive words have been sprayed on the side wall of the village hall facing the play area.",
    placeId: "village-hall",
    ...near("village-hall", -6, 8),
    locationText: "Side wall of the village hall facing the play area",
    attributes: { offensive: "yes", surface: "wall" },
    createdDaysAgo: 2,
    history: [
      {
        status: "in_progress",
        daysAgo: 2,
        note: "Offensive graffiti is removed as a priority; the crew is on its way.",
      },
      { status: "fixed", daysAgo: 1, note: "Removed and the wall repainted." },
    ],
  },
  {
    categoryCode: "dog_fouling",
    title: "Dog mess all along the path to the recreation ground",
    description:
      "The path from Meadow Way into the recreation ground is covered in dog mess, and children walk this way to the play area.",
    placeId: "recreation-ground",
    ...near("recreation-ground", 15, 12),
    locationText: "Path from Meadow Way to the recreation ground",
    attributes: {},
    createdDaysAgo: 12,
    history: [
      {
        status: "closed",
        daysAgo: 5,
        note: "The path has been cleaned, an extra dog waste bin put in by the entrance and signs put up. We will keep an eye on it.",
      },
    ],
  },
  {
    categoryCode: "dog_fouling",
    title: "Dog fouling on School Lane pavement",
    description: "Repeated dog fouling on the narrow pavement between the surgery and the school.",
    placeId: "school-lane",
    ...near("school-lane", -8, -20),
    locationText: "School Lane, between the surgery and the school",
    attributes: {},
    createdDaysAgo: 7,
    history: [],
  },
  {
    categoryCode: "litter_bin",
    title: "Overflowing bin on the village green",
    description:
      "The bin by the bench on the green is overflowing after the weekend and litter is blowing across the grass.",
    placeId: "village-green",
    ...near("village-green", 5, 10),
    locationText: "Bin by the bench on the village green",
    attributes: { bin_problem: "full", bin_type: "litter" },
    createdDaysAgo: 2,
    history: [],
  },
  {
    categoryCode: "litter_bin",
    title: "Dog bin by the mill pond broken",
    description: "The red dog waste bin by the mill pond has come off its post and is lying on the ground.",
    placeId: "mill-pond",
    ...near("mill-pond", 8, 14),
    locationText: "Footpath beside the mill pond",
    attributes: { bin_problem: "damaged", bin_type: "dog_waste" },
    createdDaysAgo: 29,
    history: [
      { status: "investigating", daysAgo: 27, note: "Passed to the council's street scene team." },
      { status: "fixed", daysAgo: 16, note: "A new bin has been fitted on a new post." },
    ],
  },
  {
    categoryCode: "abandoned_vehicle",
    title: "Car left on the verge in Kingsmead for weeks",
    description:
      "A silver hatchback with two flat tyres has been parked on the verge at the end of Kingsmead for about three weeks and has not moved.",
    placeId: "kingsmead",
    ...near("kingsmead", 20, -35),
    locationText: "Verge at the end of Kingsmead",
    attributes: { days_parked: "21", vehicle_condition: ["flat_tyres", "no_tax"] },
    createdDaysAgo: 54,
    history: [
      {
        status: "investigating",
        daysAgo: 52,
        note: "Passed to the council's enforcement team to check with the DVLA.",
      },
      { status: "in_progress", daysAgo: 45, note: "A warning notice has been put on the vehicle." },
      { status: "fixed", daysAgo: 31, note: "The vehicle has been removed." },
    ],
  },
  {
    categoryCode: "road_sign",
    title: "Fingerpost knocked down at the top of Downs Road",
    description:
      "The old wooden fingerpost at the junction with the bridleway has been knocked flat, probably by a tractor.",
    placeId: "downs-road",
    ...near("downs-road", 60, -10),
    locationText: "Junction of Downs Road and the bridleway to Hanging Wood",
    attributes: { sign_problem: "knocked_down" },
    createdDaysAgo: 44,
    history: [
      { status: "investigating", daysAgo: 43, note: "Passed to the council's highways team." },
      {
        status: "action_scheduled",
        daysAgo: 30,
        note: "The fingerpost will be repaired and put back rather than replaced.",
      },
      { status: "in_progress", daysAgo: 25, note: "The arms have been taken away for repainting." },
      { status: "fixed", daysAgo: 22, note: "Fingerpost reinstated with repainted arms." },
    ],
  },
  {
    categoryCode: "pavement",
    title: "Raised paving slab outside the launderette",
    description:
      "A slab outside the launderette is sticking up by about three centimetres. Someone tripped on it last week.",
    placeId: "chapel-street",
    ...near("chapel-street", 4, 12),
    locationText: "Outside 13 Chapel Street",
    attributes: { pavement_problem: "raised_slab" },
    createdDaysAgo: 19,
    history: [{ status: "investigating", daysAgo: 18, note: "A highways inspector will visit to assess it." }],
  },
  {
    categoryCode: "overgrown_vegetation",
    title: "Hedge blocking the pavement on Pound Lane",
    description:
      "The hawthorn hedge on the corner of Pound Lane has grown right across the pavement, forcing people into the road, and drivers cannot see round the bend.",
    placeId: "pound-lane",
    ...near("pound-lane", -15, -20),
    locationText: "Corner of Pound Lane by the allotments",
    attributes: { blocking: ["pavement", "sightline"] },
    createdDaysAgo: 25,
    history: [
      {
        status: "investigating",
        daysAgo: 24,
        note: "The council has written to the landowner asking them to cut back the hedge.",
      },
      { status: "fixed", daysAgo: 9, note: "The hedge has been cut back by the landowner." },
    ],
  },
  {
    categoryCode: "overgrown_vegetation",
    title: "Brambles hiding the 30 mph sign on West End",
    description:
      "The 30 mph sign at the western entrance to the village is almost completely hidden by brambles and ivy.",
    placeId: "west-end",
    ...near("west-end", 0, -180),
    locationText: "30 mph sign at the western entrance to the village, West End",
    attributes: { blocking: ["road_sign"] },
    createdDaysAgo: 5,
    history: [],
  },
  {
    categoryCode: "right_of_way",
    title: "Broken stile on Footpath 12 at Hanging Wood",
    description:
      "The stile into Hanging Wood has a snapped step and the path beyond is overgrown with nettles. Impossible with a dog or a child.",
    placeId: "hanging-wood-stile",
    ...near("hanging-wood-stile", -5, 3),
    locationText: "Stile at the entrance to Hanging Wood, Footpath 12",
    attributes: { path_number: "Footpath 12", problem: ["stile_gate", "overgrown"] },
    createdDaysAgo: 73,
    history: [
      { status: "investigating", daysAgo: 70, note: "Passed to the council's rights of way team." },
      {
        status: "action_scheduled",
        daysAgo: 40,
        note: "The stile will be replaced with a kissing gate as part of the Footpath 12 restoration project in the spring. The nettles have been strimmed in the meantime.",
      },
    ],
  },
  {
    categoryCode: "right_of_way",
    title: "Bridleway between Pound Lane and Downs Road churned to mud",
    description:
      "The bridleway is now ankle-deep mud for about 100 metres and walkers are going round through the crop.",
    placeId: null,
    ...near("allotments", 90, 60),
    locationText: "Bridleway 4 between the top of Pound Lane and Downs Road",
    attributes: { path_number: "Bridleway 4", problem: ["surface"] },
    createdDaysAgo: 80,
    history: [],
  },
  {
    categoryCode: "play_area",
    title: "Swing chain worn through in the play area",
    description:
      "One of the chains on the toddler swings is badly worn at the top shackle and looks like it could snap.",
    placeId: "recreation-ground",
    ...near("recreation-ground", -3, -6),
    locationText: "Toddler swings, recreation ground play area",
    attributes: { equipment: "swings" },
    createdDaysAgo: 16,
    history: [
      {
        status: "in_progress",
        daysAgo: 14,
        note: "Parish volunteers have taken the swing out of use and ordered a new chain and shackle.",
      },
      { status: "fixed", daysAgo: 10, note: "New chain and shackle fitted and checked by the play area inspector." },
    ],
  },
  {
    categoryCode: "play_area",
    title: "Play area gate no longer closes by itself",
    description: "The gate into the play area swings open and stays open, so dogs can get in.",
    placeId: "recreation-ground",
    ...near("recreation-ground", 6, 10),
    locationText: "Main gate of the recreation ground play area",
    attributes: { equipment: "fencing_gate" },
    createdDaysAgo: 1,
    history: [],
  },
  {
    categoryCode: "bench_noticeboard",
    title: "Broken slats on the bench by the war memorial",
    description: "Two slats on the memorial bench are split and one has fallen off completely.",
    placeId: "war-memorial",
    ...near("war-memorial", 4, -5),
    locationText: "Bench beside the war memorial",
    attributes: { item: "bench" },
    createdDaysAgo: 37,
    history: [
      { status: "in_progress", daysAgo: 30, note: "The Repair Café volunteers have taken the bench away to fix it." },
      { status: "fixed", daysAgo: 21, note: "New oak slats fitted and the bench oiled and put back." },
    ],
  },
  {
    categoryCode: "bus_shelter",
    title: "Cracked glass panel in the Post Office bus shelter",
    description:
      "The end glass panel of the bus shelter is cracked from top to bottom and some pieces have fallen out.",
    placeId: "post-office-bus-stop",
    ...near("post-office-bus-stop", 5, -4),
    locationText: "Bus shelter outside the Post Office, High Street",
    attributes: {},
    createdDaysAgo: 10,
    history: [],
  },
];
