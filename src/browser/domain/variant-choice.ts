/**
 * Which variant of a widget group a visitor is served (spec §2.2 `distribution`, a percentage
 * chance): the visitor's point in [0, 100), a hash of the group and the visitor id, falls in one
 * variant's share of the line. The same visitor in the same group always lands on the same point,
 * so the choice is sticky for as long as the variants and their distributions stay the same.
 */
import { createHash } from 'node:crypto';

export interface Variant {
  id: number;
  /** Percentage chance of being served (0 to 100). */
  distribution: number;
}

/** The visitor's point in [0, 100) for the group: uniform over visitor ids, and the same on every call. */
export function visitorPoint(widgetGroupId: string, visitor: string): number {
  const digest = createHash('sha256').update(`${widgetGroupId}\n${visitor}`).digest();
  return (digest.readUInt32BE(0) / 2 ** 32) * 100;
}

/**
 * The variant whose share holds the point. Shares are laid out in id order; when the distributions
 * do not add up to 100 (a variant hidden, or set apart), each is scaled to its part of their sum,
 * and when they add up to 0 every variant gets an equal share. Undefined for no variant.
 */
export function chooseVariant<V extends Variant>(variants: readonly V[], point: number): V | undefined {
  if (variants.length === 0) return undefined;
  const ordered = [...variants].sort((a, b) => a.id - b.id);
  const total = ordered.reduce((sum, v) => sum + Math.max(0, v.distribution), 0);
  const weight = (v: V) => (total === 0 ? 1 : Math.max(0, v.distribution));
  const target = (point / 100) * (total === 0 ? ordered.length : total);
  let reached = 0;
  for (const variant of ordered) {
    reached += weight(variant);
    if (target < reached) return variant;
  }
  return ordered.filter((v) => weight(v) > 0).at(-1);
}
