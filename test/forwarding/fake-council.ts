import { createServer, type Server } from "node:http";

/**
 * A small fake council for the delivery form's and the CLI's connection check: services.json offers `streetlight`
 * (which asks questions) and `potholes`; services/streetlight.json requires `lamp_id` and `colour`. `failing`
 * answers 500 with HTML in the error's description (to be shown escaped).
 */
export class FakeCouncil {
  failing = false;
  private server: Server | null = null;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/open311/`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      req.resume();
      const json = (status: number, body: unknown) =>
        void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (this.failing) return json(500, [{ code: 500, description: "<b>Down</b> for maintenance" }]);
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path === "/open311/services.json") {
        return json(200, [
          { service_code: "streetlight", service_name: "Street lights", metadata: true },
          { service_code: "potholes", service_name: "Potholes", metadata: false },
        ]);
      }
      if (path === "/open311/services/streetlight.json") {
        return json(200, {
          service_code: "streetlight",
          attributes: [
            { code: "lamp_id", description: "Lamp number", required: true, variable: true },
            { code: "colour", description: "Colour of the light", required: true, variable: true },
            { code: "note", description: "Anything else", required: false, variable: true },
          ],
        });
      }
      json(404, [{ code: 404, description: "not found" }]);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    this.port = (this.server?.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
