// @ts-check

/**
 * Final labels from each row's cluster id (any integers): clusters smaller than minClusterSize get
 * -1, the others 0..k-1 in order of their smallest row, so equal partitions give equal labels
 * whatever ids the algorithm used internally.
 * @param {Int32Array} clusterOfRow @param {number} minClusterSize @returns {Int32Array}
 */
export function labelClusters(clusterOfRow, minClusterSize) {
  /** @type {Map<number, number>} */
  const sizes = new Map();
  for (const cluster of clusterOfRow) sizes.set(cluster, (sizes.get(cluster) ?? 0) + 1);
  /** @type {Map<number, number>} */
  const labelOf = new Map();
  const labels = new Int32Array(clusterOfRow.length);
  clusterOfRow.forEach((cluster, row) => {
    if (/** @type {number} */ (sizes.get(cluster)) < minClusterSize) {
      labels[row] = -1;
      return;
    }
    let label = labelOf.get(cluster);
    if (label === undefined) {
      label = labelOf.size;
      labelOf.set(cluster, label);
    }
    labels[row] = label;
  });
  return labels;
}
