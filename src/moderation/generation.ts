let generation = 0;
/**
 * Moves on with every moderation decision in this process, so caches of public output kept in memory (the sitemap)
 * drop a hidden item at once here; other processes see the new data version at their next check. (What is public
 * is the one visibility rule of the floor, src/core/visibility.ts.)
 */
export function moderationGeneration(): number {
  return generation;
}
export function noteModerationChange(): void {
  generation++;
}
