#include "algorithms/shuffle/cpu_streams.h"

#include <omp.h>

pb_cs_trace_fn pb_cs_trace = NULL;

int pb_cs_threads(long long param) { return param > 0 ? (int)param : omp_get_num_procs(); }
