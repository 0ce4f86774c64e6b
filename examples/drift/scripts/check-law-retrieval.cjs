#!/usr/bin/env node
// Regression suite for law retrieval: every case must land its statute in the top k.
// If these parameters drift from production (api/agent.ts), you are not measuring
// production.
const { embedQuery, nearest } = require("./lib/vector-store.cjs");
const CASES = require("./law-cases.json");

const TOP_K = 8;
const CANDIDATE_MULTIPLIER = 6;
const CANDIDATE_POOL = TOP_K * CANDIDATE_MULTIPLIER;
const LAW_SLOTS_RESERVED = 2; // this script's own name: names.yaml maps it
const STATUTE_GATE = 0.35;

async function retrieveLikeProduction(question) {
  const candidates = await nearest(await embedQuery(question), CANDIDATE_POOL);
  const ranked = candidates;
  const picked = ranked.slice(0, TOP_K);
  const statutes = picked.filter((c) => c.sourceType === "statute");
  if (statutes.length >= LAW_SLOTS_RESERVED) return picked;
  const backfillPool = candidates.slice(0, CANDIDATE_POOL);
  const extra = backfillPool
    .filter((c) => c.sourceType === "statute" && c.score >= STATUTE_GATE)
    .filter((c) => !picked.includes(c))
    .slice(0, LAW_SLOTS_RESERVED - statutes.length);
  return [...picked.slice(0, TOP_K - extra.length), ...extra];
}

async function main() {
  let passed = 0;
  for (const c of CASES) {
    const hits = await retrieveLikeProduction(c.q);
    const ok = c.expected.every((id) => hits.some((h) => h.sourceId === id));
    if (ok) passed += 1;
    console.log(`${ok ? "ok  " : "FAIL"} ${c.label}`);
  }
  console.log(`${passed} of ${CASES.length} advisor phrasings retrieve the correct source`);
  process.exitCode = passed === CASES.length ? 0 : 1;
}

main();
