// @ts-check

/**
 * A max-heap of (bound, link) entries in growable typed arrays, so millions of entries stay
 * compact. Equal bounds come out in link order; links are numbered in row order
 * (tasks/agglomerate.mjs), so ties break the same way however the work was split.
 */
export function createLinkHeap() {
  let bound = new Float64Array(1024);
  let link = new Int32Array(1024);
  let size = 0;

  /** True if entry i comes out before entry j. @param {number} i @param {number} j */
  const before = (i, j) =>
    /** @type {number} */ (bound[i]) > /** @type {number} */ (bound[j]) ||
    (bound[i] === bound[j] && /** @type {number} */ (link[i]) < /** @type {number} */ (link[j]));
  /** @param {number} i @param {number} j */
  const swap = (i, j) => {
    const keptBound = /** @type {number} */ (bound[i]);
    bound[i] = /** @type {number} */ (bound[j]);
    bound[j] = keptBound;
    const keptLink = /** @type {number} */ (link[i]);
    link[i] = /** @type {number} */ (link[j]);
    link[j] = keptLink;
  };
  /** @param {number} i */
  const siftDown = (i) => {
    for (;;) {
      const left = 2 * i + 1;
      let first = i;
      if (left < size && before(left, first)) first = left;
      if (left + 1 < size && before(left + 1, first)) first = left + 1;
      if (first === i) return;
      swap(i, first);
      i = first;
    }
  };

  return {
    get size() {
      return size;
    },
    /** @param {number} entryBound @param {number} entryLink */
    push(entryBound, entryLink) {
      if (size === bound.length) {
        const grownBound = new Float64Array(size * 2);
        grownBound.set(bound);
        bound = grownBound;
        const grownLink = new Int32Array(size * 2);
        grownLink.set(link);
        link = grownLink;
      }
      bound[size] = entryBound;
      link[size] = entryLink;
      for (let i = size++; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!before(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    },
    /** Removes the first entry; the heap must not be empty. @returns {{ bound: number; link: number }} */
    pop() {
      const top = { bound: /** @type {number} */ (bound[0]), link: /** @type {number} */ (link[0]) };
      swap(0, --size);
      siftDown(0);
      return top;
    },
  };
}
