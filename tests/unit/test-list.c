// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the id-list parser (lib/base/list.c): "0,2-3" lists.  Prints TAP. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "base/list.h"
#include "tap.h"

static void good(const char *arg, int64_t in, int64_t out)
{
	struct pm_id_list l = { 0 };
	int err = pm_id_list__parse(&l, arg, INT32_MAX);

	tap_ok(!err && pm_id_list__has(&l, in) && !pm_id_list__has(&l, out),
	       "'%s' holds %lld, not %lld", arg, (long long)in, (long long)out);
	pm_id_list__exit(&l);
}

static void bad(const char *arg, int64_t max)
{
	struct pm_id_list l = { 0 };

	tap_ok(pm_id_list__parse(&l, arg, max) == -EINVAL, "'%s' is refused", arg);
	pm_id_list__exit(&l);
}

int main(void)
{
	struct pm_id_list l = { 0 };

	good("0", 0, 1);
	good("3", 3, 2);
	good("0,2-3", 2, 1);
	good("0,2-3", 3, 4);
	good("5-5", 5, 6);
	good("2147483647", INT32_MAX, 0);
	good("1,,2", 2, 3);
	bad("", INT32_MAX);
	bad(",", INT32_MAX);
	bad("-1", INT32_MAX);
	bad("3-2", INT32_MAX);
	bad("1-", INT32_MAX);
	bad("a", INT32_MAX);
	bad("1,x", INT32_MAX);
	bad("2147483648", INT32_MAX);
	bad("8", 7);
	bad("99999999999999999999", INT32_MAX);

	tap_ok(!pm_id_list__parse(&l, "1-2", 10) && !pm_id_list__parse(&l, "7", 10) &&
	       l.nr == 2 && pm_id_list__has(&l, 7) && pm_id_list__has(&l, 1),
	       "a second list is appended");
	tap_ok(pm_id_list__parse(&l, "", 10) == -EINVAL && l.nr == 2,
	       "an empty list is refused even after others");
	pm_id_list__exit(&l);
	tap_ok(!l.r && !l.nr && !pm_id_list__has(&l, 0), "exit empties the list");
	return tap_done();
}
