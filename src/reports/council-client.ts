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

/** GET {base}/services.json. Throws OutboundError with a message for staff. */
export async function fetchServices(config: Config, endpoint: CouncilEndpoint): Promise<CouncilService[]> {
  if (!endpoint.open311_endpoint) throw new OutboundError("no endpoint is set");
  const query: Record<string, string> = {};
  if (endpoint.open311_jurisdiction) query.jurisdiction_id = endpoint.open311_jurisdiction;
  const answer = await outboundRequest(endpointUrl(endpoint.open311_endpoint, "services.json", query), {
    ...requestOptions(config),
    headers: { accept: "application/json" },
  });
  if (answer.status !== 200) throw new OutboundError(councilErrorText(answer.status, answer.body), answer.status);
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    throw new OutboundError("the council's services list is not JSON", answer.status);
  }
  if (!Array.isArray(parsed)) throw new OutboundError("the council's services list is not a list", answer.status);
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
  if (!endpoint.open311_endpoint) throw new OutboundError("no endpoint is set");
  const query: Record<string, string> = {};
  if (endpoint.open311_jurisdiction) query.jurisdiction_id = endpoint.open311_jurisdiction;
  const path = `services/${encodeURIComponent(serviceCode)}.json`;
  const answer = await outboundRequest(endpointUrl(endpoint.open311_endpoint, path, query), {
    ...requestOptions(config),
    headers: { accept: "application/json" },
  });
  if (answer.status !== 200) throw new OutboundError(councilErrorText(answer.status, answer.body), answer.status);
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    throw new OutboundError("the council's service definition is not JSON", answer.status);
  }
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
