/* Summary statistics of timing samples. */
#ifndef PB_STATS_SUMMARY_H
#define PB_STATS_SUMMARY_H

#include <stddef.h>

typedef struct pb_summary {
    size_t count;
    double median, min, max, mean, stddev; /* stddev: sample (n-1); 0 for one sample */
} pb_summary;

/* Summarises x[0..n) (not modified). */
pb_summary pb_summarise(const double *x, size_t n);

#endif
