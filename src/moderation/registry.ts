import type { Civic } from "../core/context.js";
import type { ModeratedKind } from "../core/moderation.js";

export type {
  ModeratedItem,
  ModeratedKind,
  ModeratedPreview,
  ModerationContext,
  ModerationState,
} from "../core/moderation.js";

/** Every feature's moderated kinds, in feature-list order (from the manifests: nothing registers itself). */
export function moderatedKinds(civic: Pick<Civic, "features">): ModeratedKind[] {
  return civic.features.flatMap((f) => f.moderatedKinds ?? []);
}

export function moderatedKind(civic: Pick<Civic, "features">, kind: string): ModeratedKind | undefined {
  return moderatedKinds(civic).find((k) => k.kind === kind);
}
