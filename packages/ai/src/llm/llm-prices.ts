/** USD per million input and output tokens, by model name prefix (the longest matching prefix wins). */
const PRICES: [prefix: string, input: number, output: number][] = [
  ["gpt-4o-mini", 0.15, 0.6],
  ["gpt-4o", 2.5, 10],
  ["gpt-4.1-nano", 0.1, 0.4],
  ["gpt-4.1-mini", 0.4, 1.6],
  ["gpt-4.1", 2, 8],
  ["gpt-5-nano", 0.05, 0.4],
  ["gpt-5-mini", 0.25, 2],
  ["gpt-5", 1.25, 10],
  ["o4-mini", 1.1, 4.4],
  ["claude-3-5-haiku", 0.8, 4],
  ["claude-3-5-sonnet", 3, 15],
  ["claude-haiku-4", 1, 5],
  ["claude-sonnet-4", 3, 15],
  ["claude-opus-4", 15, 75],
];

/** The cost of a call in USD, or null when the model's price is not known (a local or unlisted model). */
export function costOf(model: string, inputTokens: number, outputTokens: number): number | null {
  const price = PRICES.filter(([prefix]) => model.startsWith(prefix)).sort((a, b) => b[0].length - a[0].length)[0];
  if (!price) return null;
  return (inputTokens * price[1] + outputTokens * price[2]) / 1_000_000;
}
