import { AppError, type FieldProblem } from "../http/errors.js";

/** The problems of a validation error, or rethrows anything else. */
export function problemsOf(error: unknown): { problems: FieldProblem[]; status: number } {
  if (error instanceof AppError && error.code === "validation_failed") return { problems: error.fields, status: 400 };
  throw error;
}
