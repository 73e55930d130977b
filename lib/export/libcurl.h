/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_LIBCURL_H
#define PMREC_LIBCURL_H

/*
 * libcurl, loaded by the first pm_libcurl__load (base/dynlib.h): only pmrec
 * agent sends anything, and linked in, libcurl and its TLS, HTTP/2 and
 * Kerberos libraries doubled every command's memory.  Calls go through
 * pm_libcurl's pointers, typed as curl.h declares the functions.
 */
#include <curl/curl.h>

struct pm_libcurl {
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_global_cleanup) *global_cleanup;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_easy_reset) *easy_reset;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_easy_escape) *easy_escape;
	__typeof__(curl_free) *free;
	__typeof__(curl_mime_init) *mime_init;
	__typeof__(curl_mime_free) *mime_free;
	__typeof__(curl_mime_addpart) *mime_addpart;
	__typeof__(curl_mime_name) *mime_name;
	__typeof__(curl_mime_data) *mime_data;
	__typeof__(curl_mime_filename) *mime_filename;
	__typeof__(curl_mime_type) *mime_type;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
};

/* Valid after pm_libcurl__load returned 0. */
extern struct pm_libcurl pm_libcurl;

/* Loads libcurl.so.4 once: 0, or -ENOSYS when it is not installed. */
int pm_libcurl__load(void);

#endif
