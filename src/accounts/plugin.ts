import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { resolveViewer } from "./sessions.js";

/**
 * Finds the signed-in person of every page request (`request.viewer`) from the session cookie, and of the app's
 * own browser endpoints under /api/app/ (the drafts a signed-in person's device sends are theirs, and the ban list
 * applies to their account there too). Registered without encapsulation before the features, so every page (error
 * pages included) knows who is signed in. Requests without our cookie cost nothing and never receive one.
 */
export const sessionPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorateRequest("viewer", null);
    // Synchronous unless there is a session to look up: an async hook would make every request's hook chain wait
    // for a promise, cookie or not (bench/businesses).
    app.addHook("onRequest", (request, reply, done) => {
      if (request.headers.cookie === undefined) return done();
      // Pages unless they say otherwise (static files, photos); API routes only when they ask (see `session`).
      const { family, session } = request.routeOptions.config;
      if (session === false || (family !== undefined && session !== true)) return done();
      resolveViewer(app.civic, request, reply).then(() => done(), done);
    });
  },
  { name: "sessions" },
);
