/* dataset_cut.c - cutting a dataset's rows into balanced ranges
 * (dsana_dataset_cut_rows, dataset.h): what an app's tasks are made of. */
#include "dsana/dataset.h"

uint32_t dsana_dataset_cut_rows(const struct dsana_dataset *ds, uint64_t block, uint32_t want, uint64_t *cut) {
  uint64_t blocks = (ds->n_rows + block - 1) / block;
  uint32_t k = want < blocks ? want : (uint32_t)blocks;
  double total = (double)ds->nnz + (double)ds->n_rows;
  cut[0] = 0;
  uint64_t b = 0;
  for (uint32_t t = 0; t < k; t++) {
    double target = total * (double)(t + 1) / k;
    uint64_t max_b = blocks - (k - 1 - t); /* leave a block for each task after */
    b++;
    while (b < max_b && (double)(ds->row_off[b * block] + b * block) < target)
      b++;
    uint64_t row = t + 1 == k ? ds->n_rows : b * block;
    cut[t + 1] = row < ds->n_rows ? row : ds->n_rows;
  }
  return k;
}
