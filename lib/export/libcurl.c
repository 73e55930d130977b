// SPDX-License-Identifier: GPL-2.0
#include <pthread.h>
#include <stddef.h>

#include "base/dynlib.h"
#include "export/libcurl.h"

struct pm_libcurl pm_libcurl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int load_err;

static void libcurl__load(void)
{
	/* In struct pm_libcurl's order. */
	static const char *const names[] = {
		"curl_global_init", "curl_global_cleanup", "curl_easy_init", "curl_easy_cleanup",
		"curl_easy_reset", "curl_easy_setopt", "curl_easy_perform", "curl_easy_getinfo",
		"curl_easy_strerror", "curl_easy_escape", "curl_free", "curl_mime_init",
		"curl_mime_free", "curl_mime_addpart", "curl_mime_name", "curl_mime_data",
		"curl_mime_filename", "curl_mime_type", "curl_slist_append", "curl_slist_free_all",
	};
	void *syms[sizeof(names) / sizeof(names[0])];
	void **slot = (void **)&pm_libcurl;
	size_t i;

	_Static_assert(sizeof(pm_libcurl) == sizeof(syms), "one name per pointer");
	load_err = pm_dynlib__load("libcurl.so.4", names, syms, sizeof(names) / sizeof(names[0]));
	for (i = 0; !load_err && i < sizeof(syms) / sizeof(syms[0]); i++)
		slot[i] = syms[i];
}

int pm_libcurl__load(void)
{
	pthread_once(&once, libcurl__load);
	return load_err;
}
