import { AppError, type FieldProblem } from "../http/errors.js";

/** The staff pages' error summary: each problem links to its field (`#admin-<field>`). */
export function Problems({ problems }: { problems: FieldProblem[] }) {
  return problems.length > 0 ? (
    <div class="error-summary" role="alert" tabIndex={-1}>
      <h2>There is a problem</h2>
      <ul>
        {problems.map((p) => (
          <li key={p.field}>
            <a href={`#admin-${p.field}`}>{p.message}</a>
          </li>
        ))}
      </ul>
    </div>
  ) : null;
}

/** The problems of a validation error, or rethrows anything else. */
export function problemsOf(error: unknown): { problems: FieldProblem[]; status: number } {
  if (error instanceof AppError && error.code === "validation_failed") return { problems: error.fields, status: 400 };
  throw error;
}
