import { sweepAt } from "./sweep.js";

/** The browser sweep (sweep.ts) at 390 px. */
sweepAt(390, { nu: false });
