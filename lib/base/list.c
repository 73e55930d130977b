// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/list.h"

/* One "N" or "LO-HI" item. */
static int range__parse(const char *tok, int64_t max, struct pm_id_range *rg)
{
	long long lo, hi;
	char *end;

	errno = 0;
	lo = strtoll(tok, &end, 10);
	hi = lo;
	if (*end == '-' && end != tok)
		hi = strtoll(end + 1, &end, 10);
	if (errno || *end || end == tok || lo < 0 || hi < lo || hi > max)
		return -EINVAL;
	*rg = (struct pm_id_range){ .lo = lo, .hi = hi };
	return 0;
}

int pm_id_list__parse(struct pm_id_list *l, const char *arg, int64_t max)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	size_t before = l->nr;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		struct pm_id_range *r, rg;

		err = range__parse(tok, max, &rg);
		if (err)
			break;
		r = realloc(l->r, (l->nr + 1) * sizeof(*r));
		if (!r) {
			err = -ENOMEM;
			break;
		}
		l->r = r;
		l->r[l->nr++] = rg;
	}
	free(copy);
	if (!err && l->nr == before)
		err = -EINVAL;
	return err;
}

bool pm_id_list__has(const struct pm_id_list *l, int64_t v)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (v >= l->r[i].lo && v <= l->r[i].hi)
			return true;
	return false;
}

void pm_id_list__exit(struct pm_id_list *l)
{
	free(l->r);
	l->r = NULL;
	l->nr = 0;
}
