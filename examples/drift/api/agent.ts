/**
 * Retrieval for the legal advisor agent: what production really does.
 * The regression suite (scripts/check-law-retrieval.cjs) must use the same constants.
 */
import { embedQuery, nearest, type Candidate } from "./vector-store";

export const TOP_K = 8;
export const CANDIDATE_MULTIPLIER = 6;
export const CANDIDATE_POOL = TOP_K * CANDIDATE_MULTIPLIER;
// a statute split into thirteen subsections must not flood the context on its own
export const MAX_PER_SOURCE = 2;
const MIN_STATUTE_SLOTS = 2;
const STATUTE_GATE = 0.35;

function capPerSource(candidates: Candidate[], cap: number): Candidate[] {
  const taken = new Map<string, number>();
  return candidates.filter((c) => {
    const n = taken.get(c.sourceId) ?? 0;
    taken.set(c.sourceId, n + 1);
    return n < cap;
  });
}

export async function retrieve(question: string): Promise<Candidate[]> {
  const candidates = await nearest(await embedQuery(question), CANDIDATE_POOL);
  const ranked = capPerSource(candidates, MAX_PER_SOURCE);
  const picked = ranked.slice(0, TOP_K);
  const statutes = picked.filter((c) => c.sourceType === "statute");
  if (statutes.length >= MIN_STATUTE_SLOTS) return picked;
  // Backfill only from the twelve nearest: rather leave a slot empty than drag in an
  // unrelated statute from far down the ranking to fill the quota.
  const backfillPool = candidates.slice(0, 12);
  const extra = backfillPool
    .filter((c) => c.sourceType === "statute" && c.score >= STATUTE_GATE)
    .filter((c) => !picked.includes(c))
    .slice(0, MIN_STATUTE_SLOTS - statutes.length);
  return [...picked.slice(0, TOP_K - extra.length), ...extra];
}
