/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_PYROSCOPE_H
#define PMREC_PYROSCOPE_H

/*
 * One window of profile sent to a Grafana Pyroscope server by its HTTP
 * ingestion API, through libcurl:
 *
 *	POST SERVER/ingest?name=APP{k=v,...}&from=UNIX&until=UNIX
 *	     &format=pprof&sampleRate=HZ&spyName=pmrec
 *
 * with a multipart/form-data body whose field "profile" holds the gzipped
 * pprof.  Each call is one try bounded by the timeout; deciding to try
 * again is the caller's (uploader.h).
 */
#include <stddef.h>
#include <stdint.h>

struct pm_pyroscope;

struct pm_pyroscope_config {
	const char *server;		/* http(s)://host[:port][/prefix] */
	const char *name;		/* APP{k=v,...}, the series, as Pyroscope spells it */
	unsigned sample_rate;		/* Hz */
	const char *const *headers;	/* "Name: value", sent with every request */
	size_t nr_headers;
	long timeout_ms;		/* of a whole try, connecting included */
};

/* A window: [from, until) in Unix seconds, and its gzipped pprof. */
struct pm_pyroscope_window {
	int64_t from, until;
	void *data;
	size_t len;
};

/* What a try came to. */
enum pm_pyroscope_result {
	PM_PYROSCOPE_SENT,		/* 2xx */
	PM_PYROSCOPE_RETRY,		/* no answer, a reset, a timeout, 5xx or 429 */
	PM_PYROSCOPE_REJECTED,		/* another 4xx: sending it again would not help */
};

/* cfg's strings are copied.  NULL and errno on failure (EINVAL: no server). */
struct pm_pyroscope *pm_pyroscope__new(const struct pm_pyroscope_config *cfg);
void pm_pyroscope__delete(struct pm_pyroscope *p);

/*
 * Sends w once, waiting at most the timeout.  *status is the HTTP status
 * (0: none came) and err the transfer's message ("" when none); err may be
 * NULL, else of PM_PYROSCOPE_ERRLEN bytes.
 */
#define PM_PYROSCOPE_ERRLEN 256
enum pm_pyroscope_result pm_pyroscope__send(struct pm_pyroscope *p,
					    const struct pm_pyroscope_window *w,
					    long *status, char *err);

/*
 * The series name: app, then "{" hostname, service_name and the tags
 * ("k=v,k=v", may be NULL) "}".  Allocated; NULL on failure.
 */
char *pm_pyroscope__series(const char *app, const char *hostname, const char *tags);

#endif
