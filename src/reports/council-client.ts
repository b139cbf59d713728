import type { Config } from "../config.js";
import { OutboundError, outboundRequest } from "../core/http/outbound.js";
import { unseal } from "../core/sealed.js";

/**
 * Talking to a council's Open311 GeoReport v2 endpoint: reading its services and posting a request. Every answer is
 * untrusted input: bounded (core/http/outbound.ts), parsed defensively, and its text kept short and plain for staff
 * (it is escaped where it is shown, never logged with the key).
 */

/** The purpose council API keys are sealed for (core/sealed.ts). */
export const COUNCIL_KEY_PURPOSE = "open311-api-key";
/** Largest answer read from a council. */
export const MAX_ANSWER_BYTES = 512 * 1024;
const MAX_TEXT = 300;

/** A department's Open311 settings as stored (departments row). */
export interface CouncilEndpoint {
  open311_endpoint: string | null;
  open311_key_sealed: string | null;
  open311_jurisdiction: string | null;
}

/** One service the council offers. */
export interface CouncilService {
  code: string;
  name: string;
  /** The council asks questions (attributes) for it: its definition says which (fetchServiceDefinition). */
  metadata: boolean;
}

/** One question of a council's service definition. */
export interface CouncilAttribute {
  code: string;
  description: string;
  required: boolean;
}

/** Plain one-line text from an untrusted answer: control characters out, at most MAX_TEXT characters. */
export function plainText(value: string): string {
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  const cleaned = value.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
  return cleaned.length > MAX_TEXT ? `${cleaned.slice(0, MAX_TEXT)}…` : cleaned;
}

/** The endpoint's base URL with a path appended (`services.json`, `requests.json`). */
export function endpointUrl(base: string, path: string, query: Record<string, string> = {}): string {
  const url = new URL(base.endsWith("/") ? base : `${base}/`);
  url.pathname += path;
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return url.toString();
}

/** The department's API key in the clear, or null (none, or sealed under another secret). */
export function councilKey(config: Config, endpoint: CouncilEndpoint): string | null {
  if (!endpoint.open311_key_sealed || !config.forwarding.secret) return null;
  return unseal(config.forwarding.secret, COUNCIL_KEY_PURPOSE, endpoint.open311_key_sealed);
}

/** What a council's error answer says: its Open311 errors' descriptions, else the start of the body. */
export function councilErrorText(status: number, body: string): string {
  let said: string | null = null;
  try {
    const parsed: unknown = JSON.parse(body);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    const descriptions = list
      .map((e) => (e && typeof e === "object" ? (e as { description?: unknown }).description : null))
      .filter((d): d is string => typeof d === "string");
    if (descriptions.length > 0) said = descriptions.join("; ");
  } catch {
    // not JSON: the body as text
  }
  return plainText(`HTTP ${status}: ${said ?? body}`);
}

function requestOptions(config: Config) {
  return {
    timeoutMs: config.forwarding.timeoutMs,
    maxBytes: MAX_ANSWER_BYTES,
    allowPrivateAddresses: config.forwarding.allowPrivateAddresses,
  };
}

/** The query every read of a council carries: its `jurisdiction_id`, when the department has one. */
export function jurisdictionQuery(endpoint: Pick<CouncilEndpoint, "open311_jurisdiction">): Record<string, string> {
  return endpoint.open311_jurisdiction ? { jurisdiction_id: endpoint.open311_jurisdiction } : {};
}

/** GET {base}/{path} (with the jurisdiction), parsed as JSON. Throws OutboundError with a message for staff. */
async function getCouncilJson(config: Config, endpoint: CouncilEndpoint, path: string, what: string): Promise<unknown> {
  if (!endpoint.open311_endpoint) throw new OutboundError("no endpoint is set");
  const answer = await outboundRequest(endpointUrl(endpoint.open311_endpoint, path, jurisdictionQuery(endpoint)), {
    ...requestOptions(config),
    headers: { accept: "application/json" },
  });
  if (answer.status !== 200) throw new OutboundError(councilErrorText(answer.status, answer.body), answer.status);
  try {
    return JSON.parse(answer.body);
  } catch {
    throw new OutboundError(`the council's ${what} is not JSON`, answer.status);
  }
}

/** GET {base}/services.json. Throws OutboundError with a message for staff. */
export async function fetchServices(config: Config, endpoint: CouncilEndpoint): Promise<CouncilService[]> {
  const parsed = await getCouncilJson(config, endpoint, "services.json", "services list");
  if (!Array.isArray(parsed)) throw new OutboundError("the council's services list is not a list", 200);
  const services: CouncilService[] = [];
  for (const item of parsed.slice(0, 1000)) {
    if (!item || typeof item !== "object") continue;
    const { service_code: code, service_name: name } = item as Record<string, unknown>;
    if (typeof code !== "string" && typeof code !== "number") continue;
    const metadata = (item as Record<string, unknown>).metadata;
    services.push({
      code: plainText(String(code)),
      name: typeof name === "string" ? plainText(name) : "",
      metadata: metadata === true || metadata === "true",
    });
  }
  return services;
}

/** GET {base}/services/{code}.json: the questions the council asks for a service. Throws OutboundError. */
export async function fetchServiceDefinition(
  config: Config,
  endpoint: CouncilEndpoint,
  serviceCode: string,
): Promise<CouncilAttribute[]> {
  const path = `services/${encodeURIComponent(serviceCode)}.json`;
  const parsed = await getCouncilJson(config, endpoint, path, "service definition");
  const list = parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>).attributes : null;
  if (!Array.isArray(list)) return [];
  const attributes: CouncilAttribute[] = [];
  for (const item of list.slice(0, 200)) {
    if (!item || typeof item !== "object") continue;
    const { code, description, required, variable } = item as Record<string, unknown>;
    if ((typeof code !== "string" && typeof code !== "number") || variable === false || variable === "false") continue;
    attributes.push({
      code: plainText(String(code)),
      description: typeof description === "string" ? plainText(description) : "",
      required: required === true || required === "true",
    });
  }
  return attributes;
}

/** The council's answer to a POST: its id for the request, or a token to resolve later. */
export type PostOutcome =
  | { ok: true; serviceRequestId: string | null; token: string | null }
  /** `retry`: the council may accept it later (down, busy, 5xx); otherwise it refused this request. */
  | { ok: false; retry: boolean; error: string };

/** POST {base}/requests.json, form-encoded, with the Idempotency-Key. Never throws. */
export async function postRequest(
  config: Config,
  endpoint: CouncilEndpoint,
  fields: [string, string][],
  idempotencyKey: string,
): Promise<PostOutcome> {
  if (!endpoint.open311_endpoint) return { ok: false, retry: false, error: "no endpoint is set" };
  const body = new URLSearchParams(fields).toString();
  let answer;
  try {
    answer = await outboundRequest(endpointUrl(endpoint.open311_endpoint, "requests.json"), {
      ...requestOptions(config),
      method: "POST",
      headers: {
        accept: "application/json",
        "content-type": "application/x-www-form-urlencoded",
        "content-length": String(Buffer.byteLength(body)),
        "idempotency-key": idempotencyKey,
      },
      body,
    });
  } catch (error) {
    const message = error instanceof OutboundError ? error.message : "the request failed";
    // A private address is the operator's setting, not the council's outage: retrying will not help.
    return { ok: false, retry: !/private or local address|only http|not a URL/.test(message), error: message };
  }
  const { status } = answer;
  if (status >= 300 && status < 400) {
    return {
      ok: false,
      retry: false,
      error: plainText(`HTTP ${status}: the council redirected the request; not followed`),
    };
  }
  if (status !== 200 && status !== 201) {
    const retry = status >= 500 || status === 408 || status === 409 || status === 429;
    return { ok: false, retry, error: councilErrorText(status, answer.body) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return { ok: false, retry: true, error: "the council's answer is not JSON" };
  }
  const first: unknown = Array.isArray(parsed) ? parsed[0] : parsed;
  const record = first && typeof first === "object" ? (first as Record<string, unknown>) : {};
  const text = (v: unknown) =>
    (typeof v === "string" && v.trim()) || typeof v === "number" ? plainText(String(v)).slice(0, 100) : null;
  const serviceRequestId = text(record.service_request_id);
  const token = text(record.token);
  if (!serviceRequestId && !token) {
    return { ok: false, retry: true, error: "the council's answer has neither a service_request_id nor a token" };
  }
  return { ok: true, serviceRequestId, token };
}

/** One request as the council's GET requests.json describes it, cleaned: plain, bounded text only. */
export interface CouncilRequest {
  serviceRequestId: string;
  /** The council's status, lower-cased with spaces and hyphens as underscores (`in_progress`), at most 50 characters. */
  status: string;
  /** Its status_notes as plain text (tags and control characters out), at most 1,000 characters; null when none. */
  notes: string | null;
  /** Its updated_datetime as it wrote it (at most 40 characters), or null. */
  updatedAt: string | null;
}

/** The council's answer to a poll: unchanged since the entity tag we sent (304), or its requests and new tag. */
export type PollAnswer = { modified: false } | { modified: true; etag: string | null; requests: CouncilRequest[] };

const MAX_NOTES = 1000;

/** status_notes as plain text: tags out (a council may send HTML), control characters out, bounded. */
export function councilNotes(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const text = value
    .replace(/<[^>]*>/g, " ")
    // eslint-disable-next-line no-control-regex -- removing control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (!text) return null;
  return text.length > MAX_NOTES ? `${text.slice(0, MAX_NOTES)}…` : text;
}

/** A council's status word in the form the status tables use: `In Progress` → `in_progress`. */
export function councilStatusWord(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_")
    .slice(0, 50);
}

function councilRequest(item: unknown): CouncilRequest | null {
  if (!item || typeof item !== "object" || Array.isArray(item)) return null;
  const r = item as Record<string, unknown>;
  const id =
    typeof r.service_request_id === "string" || typeof r.service_request_id === "number"
      ? plainText(String(r.service_request_id)).slice(0, 100)
      : "";
  if (!id || typeof r.status !== "string") return null;
  const status = councilStatusWord(plainText(r.status));
  if (!status) return null;
  const updatedAt = typeof r.updated_datetime === "string" ? plainText(r.updated_datetime).slice(0, 40) || null : null;
  return { serviceRequestId: id, status, notes: councilNotes(r.status_notes), updatedAt };
}

/**
 * GET {base}/requests.json with the given query (service_request_id list, jurisdiction_id, api_key), sending
 * `If-None-Match` when an entity tag is known. Throws OutboundError (a message for staff and the log, never the
 * query) when there is no usable answer: an error status, a redirect (never followed), JSON that is not a list.
 * Items that are not requests (wrong types, no id or status) are left out.
 */
export async function fetchRequests(
  config: Config,
  endpoint: CouncilEndpoint,
  query: Record<string, string>,
  etag: string | null,
): Promise<PollAnswer> {
  if (!endpoint.open311_endpoint) throw new OutboundError("no endpoint is set");
  const answer = await outboundRequest(endpointUrl(endpoint.open311_endpoint, "requests.json", query), {
    ...requestOptions(config),
    headers: { accept: "application/json", ...(etag ? { "if-none-match": etag } : {}) },
  });
  if (answer.status === 304) return { modified: false };
  if (answer.status >= 300 && answer.status < 400) {
    throw new OutboundError(`HTTP ${answer.status}: the council redirected the request; not followed`, answer.status);
  }
  if (answer.status !== 200) throw new OutboundError(councilErrorText(answer.status, answer.body), answer.status);
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    throw new OutboundError("the council's requests list is not JSON", answer.status);
  }
  // GeoReport v2 JSON is a list; some servers wrap it as {"service_requests": [...]}.
  const list =
    parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as { service_requests?: unknown }).service_requests
      : parsed;
  if (!Array.isArray(list)) throw new OutboundError("the council's requests list is not a list", answer.status);
  const requests = list
    .slice(0, 1000)
    .map(councilRequest)
    .filter((r): r is CouncilRequest => r !== null);
  const tag = answer.headers.etag;
  return { modified: true, etag: typeof tag === "string" && tag.length <= 200 ? tag : null, requests };
}

/** GET {base}/tokens/{token}.json: the council's service_request_id for a token, or null while it has none. */
export async function resolveToken(
  config: Config,
  endpoint: CouncilEndpoint,
  token: string,
  query: Record<string, string>,
): Promise<string | null> {
  if (!endpoint.open311_endpoint) throw new OutboundError("no endpoint is set");
  const answer = await outboundRequest(
    endpointUrl(endpoint.open311_endpoint, `tokens/${encodeURIComponent(token)}.json`, query),
    { ...requestOptions(config), headers: { accept: "application/json" } },
  );
  if (answer.status === 404) return null;
  if (answer.status !== 200) {
    throw new OutboundError(
      answer.status >= 300 && answer.status < 400
        ? `HTTP ${answer.status}: the council redirected the request; not followed`
        : councilErrorText(answer.status, answer.body),
      answer.status,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    throw new OutboundError("the council's token answer is not JSON", answer.status);
  }
  const first: unknown = Array.isArray(parsed) ? parsed[0] : parsed;
  const id = first && typeof first === "object" ? (first as Record<string, unknown>).service_request_id : null;
  return typeof id === "string" || typeof id === "number" ? plainText(String(id)).slice(0, 100) || null : null;
}
