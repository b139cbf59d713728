import { sweepAt } from "./sweep.js";

/** The browser sweep (sweep.ts) at 1280 px. */
sweepAt(1280, { nu: false });
