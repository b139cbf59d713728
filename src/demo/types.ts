/**
 * Shapes of the fictional demo village. The data lives in `village.ts`; `seed.ts` loads it into a database.
 * Everything here is fictional: names, addresses, phone numbers (Ofcom drama ranges) and example.org emails.
 */

import type { AttributeDefinition } from "../reports/attributes.js";

export type DayOfWeek = "Monday" | "Tuesday" | "Wednesday" | "Thursday" | "Friday" | "Saturday" | "Sunday";

export interface DemoVillageInfo {
  /** e.g. "Ashcombe St Mary" */
  name: string;
  /** The (fictional) local council that reports may be forwarded to. */
  councilName: string;
  /** Public contact address of the volunteers who run the platform (example.org). */
  contactEmail: string;
  centre: { lat: number; lng: number };
  /** The village area: reports must fall inside it. */
  bounds: { south: number; west: number; north: number; east: number };
}

export interface DemoOpeningHours {
  dayOfWeek: DayOfWeek[];
  /** "HH:MM", 24-hour */
  opens: string;
  closes: string;
}

export interface DemoBusiness {
  /** URL-safe slug, unique, e.g. "the-old-bakery" */
  id: string;
  name: string;
  /** Most specific schema.org LocalBusiness subtype, e.g. "Bakery", "CafeOrCoffeeShop", "Pharmacy". */
  schemaType: string;
  /** Human display category, e.g. "Food and drink" */
  category: string;
  description: string;
  address: {
    streetAddress: string;
    addressLocality: string;
    addressRegion: string;
    postalCode: string;
    addressCountry: "GB";
  };
  geo: { latitude: number; longitude: number };
  telephone?: string;
  email?: string;
  url?: string;
  openingHours: DemoOpeningHours[];
  sameAs?: string[];
  image?: string;
}

/** An Open311 service-definition attribute: an extra question a category asks (the reports feature's type). */
export type DemoAttribute = AttributeDefinition;

/** A report category = an Open311 service. */
export interface DemoCategory {
  /** Open311 service_code, URL-safe, e.g. "streetlight" */
  code: string;
  name: string;
  description: string;
  /** Open311 group, e.g. "Streets and lighting" */
  group: string;
  keywords: string[];
  /** Council department address reports are forwarded to (example.org), or null when not forwarded. */
  departmentName: string | null;
  departmentEmail: string | null;
  attributes: DemoAttribute[];
}

/** The gazetteer: streets and landmarks a resident can pick instead of using the map. */
export interface DemoPlace {
  id: string;
  name: string;
  kind: "street" | "landmark";
  lat: number;
  lng: number;
}

export interface DemoCouncillor {
  id: string;
  name: string;
  /** e.g. "Parish councillor", "District councillor" */
  role: string;
  ward: string;
  party: string | null;
  email: string;
  phone: string | null;
  /** When and where they hold surgeries, free text. */
  surgery: string | null;
  responsibilities: string[];
}

export type DemoProjectStatus = "planned" | "active" | "completed";

export interface DemoProject {
  id: string;
  title: string;
  summary: string;
  /** Several paragraphs, separated by blank lines. */
  body: string;
  status: DemoProjectStatus;
  /** YYYY-MM-DD */
  startedOn: string;
  lead: string;
  /** The volunteer roles people can sign up for; a project with any wants volunteers. */
  roles: string[];
  /** Dated updates posted on the project, newest last. */
  updates: DemoProjectUpdate[];
}

export interface DemoProjectUpdate {
  title: string;
  /** Markdown, like a staff member's update. */
  body: string;
  daysAgo: number;
}

/** A resident's idea, already published, with the support it has and the parish's answer if any. */
export interface DemoIdea {
  title: string;
  description: string;
  /** One of the ideas feature's categories (IDEA_CATEGORIES). */
  category: string;
  placeId: string | null;
  locationText: string | null;
  status: "open" | "under-consideration" | "adopted" | "not-taken-forward" | "done";
  /** Staff's public response; null while the idea is only open for support. */
  response: string | null;
  /** The project an adopted or done idea became. */
  projectId: string | null;
  /** How many residents support it. */
  supports: number;
  createdDaysAgo: number;
  /** When staff answered (the idea's last change), for ideas with a response. */
  answeredDaysAgo: number | null;
}

/** A newsletter issue already sent (to the subscribers of its day: the demo has none). */
export interface DemoNewsletterIssue {
  title: string;
  /** Markdown. */
  body: string;
  sentDaysAgo: number;
}

/** The drawn scenes a demo report photo can show (src/demo/photos.ts). */
export type DemoPhotoScene = "pothole" | "flood" | "fly-tipping" | "graffiti";

export type DemoReportStatus =
  "open" | "investigating" | "in_progress" | "action_scheduled" | "fixed" | "closed" | "duplicate" | "not_responsible";

export interface DemoReport {
  categoryCode: string;
  title: string;
  description: string;
  /** Gazetteer place id the report is near, if any. */
  placeId: string | null;
  lat: number;
  lng: number;
  /** Text description of the location, e.g. "Outside 12 Church Lane". */
  locationText: string;
  /** Answers to the category's attributes, by attribute code. Lists as arrays of keys. */
  attributes: Record<string, string | string[]>;
  createdDaysAgo: number;
  /** Public status history after "open", oldest first; the last one is the current status. */
  history: { status: DemoReportStatus; daysAgo: number; note: string }[];
  /** Photos sent with the report: drawn scenes, made at seed time (no photograph of anyone's street). */
  photos?: DemoPhotoScene[];
}
