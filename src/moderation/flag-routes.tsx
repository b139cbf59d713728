import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Static, Type } from "typebox";
import { pageContext } from "../core/context.js";
import { AppError, type FieldProblem, notFound } from "../core/http/errors.js";
import { isPublic } from "../core/visibility.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import { loadItem } from "./decisions.js";
import { FlagForm, type FlagFormValues, FlagThanks } from "./flag-pages.js";
import { flagItem } from "./flags.js";
import { moderatedKind } from "./registry.js";
import { requestClient } from "../core/http/client-address.js";

const params = Type.Object({ kind: Type.String({ maxLength: 40 }), id: Type.String({ maxLength: 100 }) });
type Params = Static<typeof params>;

/** GET and POST /report-this/{kind}/{id}: the public "Report this" form for any registered kind of content. */
export async function flagRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { civic } = app;

  async function publicItem(p: Params) {
    const kind = moderatedKind(civic, p.kind);
    if (!kind) throw notFound("There is nothing like that to report.");
    const item = await loadItem(civic, civic.database.db, civic.now(), p.kind, p.id).catch(() => null);
    if (!item || !isPublic(item.state)) throw notFound("There is nothing public like that to report.");
    return { kind, item };
  }

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    p: Params,
    values: FlagFormValues,
    problems: FieldProblem[],
    status = 200,
  ) {
    const { kind, item } = await publicItem(p);
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout ctx={ctx} title={`${problems.length ? "Error: " : ""}Report this ${kind.noun}`}>
        <FlagForm
          item={item}
          noun={kind.noun}
          action={`/report-this/${encodeURIComponent(item.kind)}/${encodeURIComponent(item.id)}`}
          csrf={ctx.csrfToken}
          values={values}
          problems={problems}
        />
      </Layout>,
      status,
    );
  }

  app.get("/report-this/:kind/:id", { schema: { hide: true, params } }, async (request, reply) =>
    render(request, reply, request.params, { reason: "", note: "" }, []),
  );

  app.post(
    "/report-this/:kind/:id",
    {
      schema: {
        hide: true,
        params,
        body: Type.Object(
          {
            reason: Type.Optional(Type.String({ maxLength: 40 })),
            note: Type.Optional(Type.String({ maxLength: 5000 })),
          },
          { additionalProperties: true },
        ),
      },
    },
    async (request, reply) => {
      const p = request.params;
      const body = request.body;
      const values = { reason: body.reason ?? "", note: body.note ?? "" };
      const { item } = await publicItem(p);
      try {
        const outcome = await flagItem(civic, {
          kind: item.kind,
          id: item.id,
          reason: values.reason,
          note: values.note,
          viewer: request.viewer,
          clientIp: requestClient(request),
        });
        return sendPage(
          reply,
          <Layout ctx={pageContext(request)} title="Thank you: the moderators will look at it">
            <FlagThanks item={item} outcome={outcome} />
          </Layout>,
        );
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== "validation_failed") throw error;
        return render(request, reply, p, values, error.fields ?? [], 400);
      }
    },
  );
}
