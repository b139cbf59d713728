import { recordAudit } from "../core/staff/audit.js";
import type { Civic, Viewer } from "../core/context.js";
import type { Category } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import {
  type AttributeDatatype,
  type AttributeDefinition,
  type AttributeValues,
  categoryAttributes,
} from "../reports/index.js";
import { categoryOr404 } from "./categories.js";
import { CODE_PATTERN, CODE_RULE, CONTROL_ONE_LINE, Problems, requireReason } from "./text.js";

export const DATATYPES: { value: AttributeDatatype; label: string }[] = [
  { value: "string", label: "One line of text" },
  { value: "text", label: "Several lines of text" },
  { value: "number", label: "A number" },
  { value: "datetime", label: "A date and time" },
  { value: "singlevaluelist", label: "One answer from a list" },
  { value: "multivaluelist", label: "Any answers from a list" },
];
export const MAX_QUESTIONS = 50;
export const MAX_LIST_VALUES = 100;
const KEY = /^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/;

/** What the question form posts, as typed. */
export interface QuestionInput {
  code: string;
  description: string;
  datatype: string;
  required: boolean;
  help: string;
  values: string;
  reason: string;
}

const isList = (d: AttributeDatatype) => d === "singlevaluelist" || d === "multivaluelist";

/** The list answers as the form shows them: one `key | name` a line. */
export function valuesText(values: AttributeDefinition["values"]): string {
  return (values ?? []).map((v) => `${v.key} | ${v.name}`).join("\n");
}

/** The questions a category no longer asks (removed by an admin), kept so earlier answers keep their label. */
export function formerQuestions(category: Pick<Category, "former_attributes">): AttributeDefinition[] {
  return categoryAttributes({ attributes: category.former_attributes });
}

/**
 * A report's answers with the label of the question they answered: the current question, or for a removed one its
 * last label, marked `removed`. List answers show their names where the key is still known.
 */
export function labelledAnswers(category: Pick<Category, "attributes" | "former_attributes">, values: AttributeValues) {
  const current = categoryAttributes(category);
  const former = formerQuestions(category);
  return Object.entries(values).map(([code, answer]) => {
    const now = current.find((d) => d.code === code);
    const def = now ?? former.find((d) => d.code === code);
    const names = new Map((def?.values ?? []).map((v) => [v.key, v.name]));
    const list = (Array.isArray(answer) ? answer : [answer]).map((a) => names.get(a) ?? a);
    return { code, label: def?.description ?? code, answer: list.join(", "), removed: !now };
  });
}

function checkQuestion(category: Category, input: QuestionInput, editing: AttributeDefinition | null) {
  const p = new Problems();
  const current = categoryAttributes(category);
  let code = editing?.code ?? "";
  if (!editing) {
    code = input.code.trim();
    if (!code) p.add("code", `Enter a code for the question. ${CODE_RULE}`);
    else if (!CODE_PATTERN.test(code)) p.add("code", `The code is not valid. ${CODE_RULE}`);
    else if (current.some((d) => d.code === code))
      p.add("code", "This category already has a question with this code.");
    else if (formerQuestions(category).some((d) => d.code === code)) {
      p.add("code", "A removed question used this code and earlier reports keep its answers; choose another code.");
    } else if (current.length >= MAX_QUESTIONS) p.add("code", `A category can ask at most ${MAX_QUESTIONS} questions.`);
  }
  const description = p.line("description", input.description, 300, "the question");
  const help = p.line("help", input.help, 300, "the help text", false);
  const datatype = DATATYPES.find((d) => d.value === input.datatype)?.value;
  if (!datatype) p.add("datatype", "Choose the kind of answer.");
  const values: { key: string; name: string }[] = [];
  const lines = input.values
    .split(/\r\n|\r|\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "");
  if (datatype && isList(datatype)) {
    if (lines.length === 0) p.add("values", "A list question needs its answers: one a line, as key | name.");
    else if (lines.length > MAX_LIST_VALUES) p.add("values", `Give at most ${MAX_LIST_VALUES} answers.`);
    else {
      for (const [i, line] of lines.entries()) {
        const bar = line.indexOf("|");
        const key = (bar < 0 ? "" : line.slice(0, bar)).trim();
        const name = (bar < 0 ? line : line.slice(bar + 1)).trim();
        if (!KEY.test(key)) {
          p.add("values", `Line ${i + 1}: start with a key (letters, digits, - and _, up to 40), then | and the name.`);
        } else if (!name || name.length > 200 || CONTROL_ONE_LINE.test(name)) {
          p.add("values", `Line ${i + 1}: give the answer’s name after the | (plain text, up to 200 characters).`);
        } else if (values.some((v) => v.key === key)) p.add("values", `Line ${i + 1}: the key “${key}” is used twice.`);
        else values.push({ key, name });
      }
    }
  } else if (datatype && lines.length > 0) {
    p.add("values", "Only list questions have answers to choose from: clear this box or choose a list kind.");
  }
  p.fail();
  const definition: AttributeDefinition = {
    code,
    datatype: datatype as AttributeDatatype,
    variable: editing?.variable ?? true,
    required: input.required,
    order: editing?.order ?? current.length + 1,
    description,
    ...(help ? { datatypeDescription: help } : {}),
    ...(datatype && isList(datatype) ? { values } : {}),
  };
  return definition;
}

/** Writes the questions in order (renumbered 1..n) and the removed ones, and audits the change, in one transaction. */
async function saveQuestions(
  civic: Civic,
  viewer: Viewer,
  categoryCode: string,
  change: (category: Category) => {
    questions: AttributeDefinition[];
    former?: AttributeDefinition[];
    action: string;
    question: string;
    details?: Record<string, unknown>;
  },
  reason: string,
): Promise<void> {
  const now = civic.now().toISOString();
  await civic.database.db.transaction().execute(async (tx) => {
    // The questions are one JSON value: a no-op update first takes the row's lock (the write lock on SQLite), so two
    // admins editing at once apply one after the other instead of one overwriting the other's change.
    await tx.updateTable("categories").set({ code: categoryCode }).where("code", "=", categoryCode).execute();
    const category = await categoryOr404(tx, categoryCode);
    const result = change(category);
    const questions = result.questions.map((q, i) => ({ ...q, order: i + 1 }));
    await tx
      .updateTable("categories")
      .set({
        attributes: JSON.stringify(questions),
        ...(result.former ? { former_attributes: JSON.stringify(result.former) } : {}),
      })
      .where("code", "=", categoryCode)
      .execute();
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: result.action,
      itemType: "category",
      itemId: categoryCode,
      reason: reason.trim() || null,
      details: { question: result.question, ...result.details },
      at: now,
    });
  });
}

function questionOr404(category: Category, code: string): AttributeDefinition {
  const found = categoryAttributes(category).find((d) => d.code === code);
  if (!found) throw new AppError("not_found", "This category has no question with this code.");
  return found;
}

/** Adds a question at the end. Audited. */
export async function addQuestion(civic: Civic, viewer: Viewer, categoryCode: string, input: QuestionInput) {
  await saveQuestions(
    civic,
    viewer,
    categoryCode,
    (category) => {
      const q = checkQuestion(category, input, null);
      return { questions: [...categoryAttributes(category), q], action: "category.question.add", question: q.code };
    },
    input.reason,
  );
}

/** Edits a question (its code stays: answers are stored under it). Audited with the old and new definition. */
export async function editQuestion(
  civic: Civic,
  viewer: Viewer,
  categoryCode: string,
  questionCode: string,
  input: QuestionInput,
) {
  await saveQuestions(
    civic,
    viewer,
    categoryCode,
    (category) => {
      const before = questionOr404(category, questionCode);
      const q = checkQuestion(category, input, before);
      return {
        questions: categoryAttributes(category).map((d) => (d.code === questionCode ? q : d)),
        action: "category.question.edit",
        question: questionCode,
        details: { from: before, to: q },
      };
    },
    input.reason,
  );
}

/** Moves a question one place up or down. Audited. */
export async function moveQuestion(
  civic: Civic,
  viewer: Viewer,
  categoryCode: string,
  questionCode: string,
  direction: "up" | "down",
) {
  await saveQuestions(
    civic,
    viewer,
    categoryCode,
    (category) => {
      questionOr404(category, questionCode);
      const list = categoryAttributes(category);
      const i = list.findIndex((d) => d.code === questionCode);
      const j = direction === "up" ? i - 1 : i + 1;
      if (j >= 0 && j < list.length)
        [list[i], list[j]] = [list[j] as AttributeDefinition, list[i] as AttributeDefinition];
      return { questions: list, action: "category.question.move", question: questionCode, details: { direction } };
    },
    "",
  );
}

/**
 * Removes a question: new reports are no longer asked it, and it moves to the category's former questions so the
 * answers earlier reports gave keep their label. Its code is never used again in this category. Audited.
 */
export async function removeQuestion(
  civic: Civic,
  viewer: Viewer,
  categoryCode: string,
  questionCode: string,
  reason: string,
) {
  await saveQuestions(
    civic,
    viewer,
    categoryCode,
    (category) => {
      const removed = questionOr404(category, questionCode);
      requireReason(reason, `reason_${questionCode}`);
      return {
        questions: categoryAttributes(category).filter((d) => d.code !== questionCode),
        former: [...formerQuestions(category).filter((d) => d.code !== questionCode), removed],
        action: "category.question.remove",
        question: questionCode,
        details: { removed },
      };
    },
    reason,
  );
}
