import multipart, { type FastifyMultipartOptions } from "@fastify/multipart";
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import fp from "fastify-plugin";

/** A request whose body can be parsed as multipart: its Content-Type names it (checked loosely, so never missed). */
export function mayBeMultipart(request: FastifyRequest): boolean {
  const type = request.headers["content-type"];
  return type !== undefined && /multipart/i.test(type);
}

type Hook = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) => unknown;

/** Runs an async request hook only for requests that may be multipart; every other request passes at once. */
function onlyForMultipart(hook: Hook) {
  return function (
    this: FastifyInstance,
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
  ): void {
    if (!mayBeMultipart(request)) {
      done();
      return;
    }
    Promise.resolve(hook.call(this, request, reply)).then(() => done(), done);
  };
}

/**
 * @fastify/multipart, whose per-request hooks run only for requests that may carry a multipart body.
 *
 * The plugin adds two async hooks to every request of the app: onRequest (a `close` listener on the response, which
 * removes files a multipart request saved with `saveRequestFiles` when the client goes away) and onResponse (the
 * same removal). Both concern the files of a multipart body, which a request without a multipart Content-Type cannot
 * have (the body parser is chosen by Content-Type), yet they cost every request two promises, a listener and the
 * asynchronous turn of the whole hook chain: a quarter of the platform's CPU time on a cached API answer (a 304,
 * bench/businesses). Here the plugin is given an instance whose `addHook` wraps those two hooks in a synchronous
 * check of the Content-Type; for a multipart request they run exactly as the plugin wrote them. Everything else
 * (parsers, decorators, options) is the plugin's own.
 */
export const multipartForMultipartRequests = fp<FastifyMultipartOptions>(
  (app, options, done) => {
    const wrapped = new Proxy(app, {
      get(target, property) {
        if (property === "addHook") {
          const addHook: typeof target.addHook = target.addHook.bind(target);
          return (name: Parameters<typeof addHook>[0], hook: Hook) =>
            name === "onRequest" || name === "onResponse"
              ? target.addHook(name, onlyForMultipart(hook))
              : addHook(name, hook);
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    multipart(wrapped, options, done);
  },
  { name: "multipart-for-multipart-requests" },
);
