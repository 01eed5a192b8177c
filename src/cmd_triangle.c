/* cmd_triangle.c: `tsketch triangle [options] INPUT...`: every record of the inputs as one set,
 * written as the lower-triangle PHYLIP matrix that `mash triangle` writes. The run is dist's
 * (cmd_dist.c) with the inputs merged and the format fixed. */
#include "cli.h"
#include "commands.h"
#include "cmd_dist.h"

int tsk_cmd_triangle(int argc, char **argv) { return tsk_dist_main(argc, argv, 1); }
