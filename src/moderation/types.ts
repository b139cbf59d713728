import type { Selectable } from "kysely";
import type { BannedSendersTable } from "../core/db/schema.js";

export type BannedSender = Selectable<BannedSendersTable>;
