import { connect, createServer as createNetServer, type Server, type Socket } from "node:net";
import sharp from "sharp";
import type { FastifyInstance } from "fastify";
import { expect } from "vitest";
import { setDepartmentDelivery } from "../../src/catalogue/delivery.js";
import { multipart } from "../open311/support.js";

/** A free port on loopback (listened on and closed at once). */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP relay in front of a council that a test can stop (an outage: connections refused) and start again. */
export class Relay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  /** Called for each connection (this platform's outbound requests make one connection each). */
  onConnection: (() => void) | null = null;
  constructor(
    readonly port: number,
    private readonly target: number,
  ) {}
  async start(): Promise<void> {
    this.server = createNetServer((client) => {
      this.onConnection?.();
      const upstream = connect(this.target, "127.0.0.1");
      this.sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
    });
    await new Promise<void>((resolve) => this.server?.listen(this.port, "127.0.0.1", resolve));
  }
  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }
}

export async function jpeg(): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 48, channels: 3, background: "#8a6" } })
    .jpeg()
    .toBuffer();
}

/** Posts a street-light report with one photo to an app's own Open311 POST; returns its reference. */
export async function postReport(app: FastifyInstance, key: string, description: string): Promise<string> {
  const body = multipart(
    [
      ["api_key", key],
      ["service_code", "streetlight"],
      ["lat", "50.9862"],
      ["long", "-2.0437"],
      ["description", description],
      ["attribute[fault]", "flickering"],
      ["email", "resident@example.org"],
      ["first_name", "Alex"],
      ["last_name", "Reporter"],
    ],
    [{ name: "media", filename: "lamp.jpg", type: "image/jpeg", data: await jpeg() }],
  );
  const res = await app.inject({ method: "POST", url: "/api/v2/requests.json", ...body });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { service_request_id: string }[])[0]?.service_request_id as string;
}

/** Points the street-lighting department of `app` at an Open311 endpoint. */
export async function deliverStreetlightsTo(app: FastifyInstance, endpoint: string, key: string): Promise<number> {
  const db = app.civic.database.db;
  const { department_id: id } = await db
    .selectFrom("categories")
    .select("department_id")
    .where("code", "=", "streetlight")
    .executeTakeFirstOrThrow();
  if (id === null) throw new Error("streetlight has no department");
  await setDepartmentDelivery(
    db,
    app.civic.config,
    id,
    {
      method: "open311",
      endpoint,
      apiKey: key,
      services: { streetlight: "streetlight" },
      attributes: { fault: "fault", lamp_post_number: "lamp_post_number" },
    },
    { accountId: null, at: new Date() },
  );
  return id;
}
