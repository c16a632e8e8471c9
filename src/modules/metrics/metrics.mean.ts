/**
 * A mean from its sum and count, kept within the range of what was averaged. Summing in floating
 * point can carry a mean a last digit past every value it came from: three samples of 3.8 sum to
 * 11.399999999999999 and average 3.7999999999999994, an average below its own minimum, and a flat
 * line at 3.8 charted a hair under it. The true mean always lies in [lo, hi], so clamping only
 * ever undoes rounding; where every value was the same, the mean is that value exactly.
 */
export function boundedMean(sum: number, n: number, lo: number, hi: number): number {
  const mean = sum / n
  return mean < lo ? lo : Math.min(mean, hi)
}
