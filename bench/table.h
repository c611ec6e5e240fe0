/* The table of finished rows on stdout. */
#ifndef PB_TABLE_H
#define PB_TABLE_H

#include "bench/runner.h"

void pb_table_header(bool seeds);
void pb_table_row(const pb_row *row);
/* The rows that failed or could not run, with their reasons, and how
 * many stopped noisier than max_noise. */
void pb_table_failures(const pb_run *run, double max_noise);

#endif
