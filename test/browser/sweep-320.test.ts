import { sweepAt } from "./sweep.js";

/** The browser sweep (sweep.ts) at 320 px; the Nu HTML Checker runs here, once per state. */
sweepAt(320, { nu: true });
