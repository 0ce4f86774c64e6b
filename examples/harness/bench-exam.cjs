// Exam benchmark: answers every question with the retrieved statutes and scores it.
// Modelled on scripts/bench-moex.cjs of the originating study's audit, before its fix.
const fs = require("fs");

const EMBED_URL = process.env.EMBED_URL || "http://127.0.0.1:8080/v1/embeddings";
const RETRYABLE = new Set([429, 500, 502, 503]);

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Retries a throttled or failing embedding service.
async function embedWithRetry(text, tries = 3) {
  for (let attempt = 0; attempt < tries; attempt++) {
    const res = await fetch(EMBED_URL, { method: "POST", body: JSON.stringify({ input: text }) });
    if (RETRYABLE.has(res.status)) {
      await sleep(500 * 2 ** attempt);
      continue;
    }
    return (await res.json()).data[0].embedding;
  }
  throw new Error(`embedding failed after ${tries} tries`);
}

async function answerQuestion(question, search, generate) {
  let references = [];
  try {
    references = await search(await embedWithRetry(question.q));
  } catch (e) {
    // on retrieval failure, degrade to baseline and mark it in the result
  }
  return { id: question.id, answer: await generate(question.q, references), references };
}

async function main(questions, search, generate, grade) {
  let score = 0;
  for (const question of questions) {
    const result = await answerQuestion(question, search, generate);
    score += grade(question, result);
  }
  const tmp = "bench.tmp.json";
  fs.writeFileSync(tmp, JSON.stringify({ score }));
  try {
    fs.unlinkSync(tmp);
  } catch {}
  console.log(`score: ${score} / ${questions.length}`);
}

module.exports = { main, answerQuestion, embedWithRetry };
