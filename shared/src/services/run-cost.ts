/** A model's prices: US dollars per million input and output tokens (null: no price). */
export type ModelPrices = { inputPrice: number | null; outputPrice: number | null };

/**
 * What a run's tokens cost at `prices`: input and output tokens (reasoning is part of the output)
 * each at their price per million, rounded to the column's 8 decimals. Null when the model has no
 * price at all, so the reports can tell "free" from "not priced"; a price left unset counts as 0.
 */
export function runCost(usage: { inputTokens?: number; outputTokens?: number } | null | undefined, prices: ModelPrices | null | undefined): number | null {
  if (!prices || (prices.inputPrice === null && prices.outputPrice === null)) return null;
  const input = (usage?.inputTokens ?? 0) * (prices.inputPrice ?? 0);
  const output = (usage?.outputTokens ?? 0) * (prices.outputPrice ?? 0);
  return Math.round((input + output) / 1e6 * 1e8) / 1e8;
}
