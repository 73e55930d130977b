// SPDX-License-Identifier: GPL-2.0
/* --sort of report and top: one parser of the list of profile keys. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"

void pm_cmd__parse_sort(struct argp_state *state, const char *arg, unsigned int allowed,
			const char *valid, enum pm_profile_key *keys, size_t *nr)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	enum pm_profile_key k;
	size_t i;

	if (!copy)
		argp_failure(state, PM_EXIT_FAILURE, ENOMEM, "--sort");
	*nr = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (pm_profile_key__parse(tok, &k) || !(allowed & 1u << k))
			argp_error(state, "unknown sort key '%s' (valid: %s)", tok, valid);
		for (i = 0; i < *nr; i++)
			if (keys[i] == k)
				argp_error(state, "sort key '%s' given twice", tok);
		keys[(*nr)++] = k;
	}
	free(copy);
	if (!*nr)
		argp_error(state, "empty --sort (valid keys: %s)", valid);
}
