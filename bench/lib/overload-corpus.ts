/** The learnings and queries of the overload benches (search-overload.ts, overload-memory.ts). */

const WORDS = ["refund", "order", "broken", "hiking", "mountain", "peanut", "allergy", "spanish", "reply", "delivery", "late", "polite", "customer", "invoice"];

/** A long query of about `chars` characters that no other request sends, so the embedder's cache never answers it. */
export function longQuery(seed: number, chars: number): string {
  const parts = [`burst${seed}`];
  let state = seed + 1;
  let length = parts[0]!.length;
  while (length < chars - 20) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const word = `${WORDS[state % WORDS.length]}${state % 97}`;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(" ");
}

/** The seeding requests: `rows` profiles and `rows` user playbooks of user ana, 100 a request. */
export function* overloadSeedRequests(rows: number): Generator<readonly [path: string, body: unknown]> {
  for (let start = 0; start < rows; start += 100) {
    const count = Math.min(100, rows - start);
    const profiles = Array.from({ length: count }, (_, i) => ({
      user_id: "ana",
      profile_id: `p-${start + i}`,
      content: `${WORDS[(start + i) % WORDS.length]} ${WORDS[(start + 3 * i) % WORDS.length]} note ${start + i}`,
    }));
    const playbooks = Array.from({ length: count }, (_, i) => ({
      user_id: "ana",
      content: `Offer a ${WORDS[(start + i) % WORDS.length]} when asked (${start + i})`,
    }));
    yield ["/api/add_user_profile", { user_profiles: profiles }];
    yield ["/api/add_user_playbook", { user_playbooks: playbooks }];
  }
}
