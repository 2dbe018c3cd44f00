// A fixed-size ring of samples: one timestamp and `width` numbers per slot, all in two typed arrays
// allocated once. Pushing past capacity overwrites the oldest slot, so the footprint never grows:
// (capacity × (width + 1)) × 8 bytes.

export interface SeriesRing {
  readonly capacity: number;
  readonly width: number;
  /** Slots filled so far (at most capacity). */
  readonly length: number;
  push(at: number, values: ArrayLike<number>): void;
  /** Oldest first: the sample times and, per column, its values. */
  read(): { at: number[]; columns: number[][] };
}

export function createSeriesRing(capacity: number, width: number): SeriesRing {
  const times = new Float64Array(capacity);
  const values = new Float64Array(capacity * width);
  let next = 0;
  let length = 0;
  return {
    capacity,
    width,
    get length() {
      return length;
    },
    push(at, sample) {
      times[next] = at;
      for (let c = 0; c < width; c++) values[next * width + c] = sample[c] ?? 0;
      next = (next + 1) % capacity;
      length = Math.min(capacity, length + 1);
    },
    read() {
      const at: number[] = [];
      const columns: number[][] = Array.from({ length: width }, () => []);
      const first = (next - length + capacity) % capacity;
      for (let i = 0; i < length; i++) {
        const slot = (first + i) % capacity;
        at.push(times[slot]!);
        for (let c = 0; c < width; c++) columns[c]!.push(values[slot * width + c]!);
      }
      return { at, columns };
    },
  };
}

/** What a ring of this shape costs in bytes (its two typed arrays). */
export const ringBytes = (capacity: number, width: number): number => capacity * (width + 1) * 8;
