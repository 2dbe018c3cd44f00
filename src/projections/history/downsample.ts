// Folding fine samples into coarse ones for the 24-hour window. Pure.

/** Sums of a bucket of samples under way; `mean` gives the coarse sample once the bucket is full. */
export interface Bucket {
  readonly sums: Float64Array;
  count: number;
}

export const emptyBucket = (width: number): Bucket => ({ sums: new Float64Array(width), count: 0 });

export function addToBucket(bucket: Bucket, sample: ArrayLike<number>): void {
  for (let c = 0; c < bucket.sums.length; c++) bucket.sums[c]! += sample[c] ?? 0;
  bucket.count++;
}

/**
 * The mean of each column, and the bucket emptied. A mean keeps rates exact (equal intervals: the
 * mean of per-interval rates is the rate over the bucket) and shows a short dip as a shallower one
 * rather than dropping it, which a last-value pick would do.
 */
export function takeMean(bucket: Bucket): Float64Array {
  const mean = new Float64Array(bucket.sums.length);
  if (bucket.count === 0) return mean;
  for (let c = 0; c < mean.length; c++) mean[c] = bucket.sums[c]! / bucket.count;
  bucket.sums.fill(0);
  bucket.count = 0;
  return mean;
}
