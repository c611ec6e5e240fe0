/* permbench: benchmarks and statistical validation of parallel permutation
 * primitives. The command line is app/cli_main.c. */
#include "app/cli.h"

int main(int argc, char **argv) { return pb_main(argc, argv); }
