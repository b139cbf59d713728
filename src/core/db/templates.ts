import { type CompiledQuery, createQueryId } from "kysely";

/** Where a value goes in a template: compiled as a parameter, replaced by the value at each run. */
class Slot {
  constructor(
    readonly name: string,
    /** The position in a list value; undefined for a scalar. */
    readonly index?: number,
  ) {}

  get label(): string {
    return this.index === undefined ? this.name : `${this.name}.${this.index}`;
  }
}

/** A value a template is built from: a scalar, or a list whose length is part of the shape. */
type TemplateValue = string | number | bigint | boolean | null | undefined | readonly (string | number)[];

/** Statements built from the same shape of values share one compiled text; at most this many shapes are kept. */
const MAX_SHAPES = 64;

/**
 * Statements that are built and compiled once per shape of their values, then run with new values (issue 15).
 *
 * Kysely builds an operation tree for every query and compiles it to SQL, which for a wide insert costs about as
 * much as SQLite's running of it: for a report (27 columns, the ban-list check inside it) building and compiling
 * took ~0.12 ms of the event loop (V8 profile under load), against ~0.13 ms for the insert itself. A template's `build` is called once per
 * shape with each value replaced by a slot (a list: by a list of slots); the compiled statement's parameters are
 * then filled in from the values at every run.
 *
 * The shape is each value's name, whether it is null or undefined (a builder may leave those out or branch on
 * them) and each list's length. `build` must not look at the values otherwise (it sees slots, not strings), and
 * each slot must become a parameter: a slot that is missing from the compiled parameters, or turns up elsewhere
 * (as a literal or an identifier), is a mistake in the builder and throws the first time that shape is built.
 */
export class StatementTemplates<V extends Record<string, TemplateValue>, R> {
  private readonly shapes = new Map<string, { compiled: CompiledQuery<R>; slots: (Slot | null)[] }>();

  constructor(private readonly build: (values: V) => { compile(): CompiledQuery<R> }) {}

  /** The compiled statement for these values (its parameters filled in), to run with `executeQuery`. */
  compile(values: V): CompiledQuery<R> {
    const key = shapeOf(values);
    let entry = this.shapes.get(key);
    if (!entry) {
      entry = compileShape(this.build, values);
      if (this.shapes.size < MAX_SHAPES) this.shapes.set(key, entry);
    }
    const { compiled, slots } = entry;
    const parameters = compiled.parameters.map((p, i) => {
      const slot = slots[i];
      if (!slot) return p;
      const value = values[slot.name];
      return slot.index === undefined ? value : (value as readonly unknown[])[slot.index];
    });
    return { sql: compiled.sql, query: compiled.query, queryId: createQueryId(), parameters };
  }
}

function shapeOf(values: Record<string, TemplateValue>): string {
  let key = "";
  for (const name in values) {
    const v = values[name];
    key += `${name}:${v === undefined ? "u" : v === null ? "n" : Array.isArray(v) ? v.length : "v"},`;
  }
  return key;
}

function compileShape<V extends Record<string, TemplateValue>, R>(
  build: (values: V) => { compile(): CompiledQuery<R> },
  values: V,
): { compiled: CompiledQuery<R>; slots: (Slot | null)[] } {
  const stand: Record<string, unknown> = {};
  const made: Slot[] = [];
  for (const name in values) {
    const v = values[name];
    if (v === null || v === undefined) stand[name] = v;
    else if (Array.isArray(v)) {
      const list = v.map((_, i) => new Slot(name, i));
      made.push(...list);
      stand[name] = list;
    } else {
      const slot = new Slot(name);
      made.push(slot);
      stand[name] = slot;
    }
  }
  const compiled = build(stand as V).compile();
  const slots = compiled.parameters.map((p) => (p instanceof Slot ? p : null));
  const unused = made.filter((slot) => !slots.includes(slot));
  if (unused.length > 0) {
    throw new Error(`StatementTemplates: ${unused.map((slot) => slot.label).join(", ")} did not become parameters`);
  }
  // A slot used as a parameter and also turned into text (a literal or an identifier) elsewhere.
  if (compiled.sql.includes("[object Object]")) throw new Error("StatementTemplates: a value became part of the SQL");
  return { compiled, slots };
}
