// SPDX-License-Identifier: GPL-2.0
/* Placeholder until the reader lands; replaced by the dump implementation. */
#include <stdio.h>

#include "builtin.h"

int cmd_dump(int argc, char **argv)
{
	fprintf(stderr, "%s: not built yet\n", argv[0]);
	return PM_EXIT_FAILURE;
}
