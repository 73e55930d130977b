// SPDX-License-Identifier: GPL-2.0
/* lib/units: byte sizes as options take them. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "tap.h"
#include "base/units.h"

int main(void)
{
	static const struct {
		const char *s;
		int err;
		uint64_t bytes;
		bool suffixed;
	} cases[] = {
		{ "0", 0, 0, false },
		{ "4096", 0, 4096, false },
		{ "64K", 0, 64 << 10, true },
		{ "64k", 0, 64 << 10, true },
		{ "256M", 0, 256 << 20, true },
		{ "256MB", 0, 256 << 20, true },
		{ "256MiB", 0, 256 << 20, true },
		{ "2G", 0, 2ULL << 30, true },
		{ "4194304G", 0, 1ULL << 52, true },
		{ "4611686018427387904", 0, 1ULL << 62, false },
		{ "4611686018427387905", -EINVAL, 0, false },
		{ "4294967296G", 0, 1ULL << 62, true },
		{ "4294967297G", -EINVAL, 0, false },
		{ "99999999999999999999", -EINVAL, 0, false },
		{ "", -EINVAL, 0, false },
		{ "M", -EINVAL, 0, false },
		{ "-1", -EINVAL, 0, false },
		{ "+1", -EINVAL, 0, false },
		{ " 1", -EINVAL, 0, false },
		{ "1T", -EINVAL, 0, false },
		{ "1MX", -EINVAL, 0, false },
		{ "1B", -EINVAL, 0, false },
		{ "1.5M", -EINVAL, 0, false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t bytes = 0;
		bool suffixed = false;
		int err = pm_units__parse_size(cases[i].s, &bytes, &suffixed);

		tap_ok(err == cases[i].err &&
		       (err || (bytes == cases[i].bytes && suffixed == cases[i].suffixed)),
		       "'%s' -> %d, %llu%s", cases[i].s, err, (unsigned long long)bytes,
		       suffixed ? " (suffixed)" : "");
	}
	return tap_done();
}
