// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/libcurl.h"
#include "export/pyroscope.h"

struct pm_pyroscope {
	CURL *curl;			/* one connection kept from window to window */
	struct curl_slist *headers;
	char *server, *name;
	unsigned sample_rate;
	long timeout_ms;
};

/* The server answers a line or two: kept out of stdout, not needed. */
static size_t pyroscope__discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

struct pm_pyroscope *pm_pyroscope__new(const struct pm_pyroscope_config *cfg)
{
	struct pm_pyroscope *p;
	size_t i;

	if (!cfg->server || !*cfg->server || !cfg->name) {
		errno = EINVAL;
		return NULL;
	}
	if (pm_libcurl__load()) {
		errno = ENOSYS;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->server = strdup(cfg->server);
	p->name = strdup(cfg->name);
	p->sample_rate = cfg->sample_rate;
	p->timeout_ms = cfg->timeout_ms;
	p->curl = pm_libcurl.easy_init();
	for (i = 0; p->curl && i < cfg->nr_headers; i++) {
		struct curl_slist *l = pm_libcurl.slist_append(p->headers, cfg->headers[i]);

		if (!l)
			break;
		p->headers = l;
	}
	if (!p->server || !p->name || !p->curl || i < cfg->nr_headers) {
		pm_pyroscope__delete(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void pm_pyroscope__delete(struct pm_pyroscope *p)
{
	if (!p)
		return;
	if (p->curl)
		pm_libcurl.easy_cleanup(p->curl);
	pm_libcurl.slist_free_all(p->headers);
	free(p->server);
	free(p->name);
	free(p);
}

/* SERVER/ingest?name=...&from=...: the query of the ingestion API, name escaped. */
static char *pyroscope__url(struct pm_pyroscope *p, const struct pm_pyroscope_window *w)
{
	char *name = pm_libcurl.easy_escape(p->curl, p->name, 0), *url = NULL;
	size_t n = strlen(p->server);

	if (!name)
		return NULL;
	while (n && p->server[n - 1] == '/')
		n--;
	if (asprintf(&url, "%.*s/ingest?name=%s&from=%" PRId64 "&until=%" PRId64
		     "&format=pprof&sampleRate=%u&spyName=pmrec", (int)n, p->server, name,
		     w->from, w->until, p->sample_rate) < 0)
		url = NULL;
	pm_libcurl.free(name);
	return url;
}

static enum pm_pyroscope_result pyroscope__classify(CURLcode rc, long status)
{
	if (rc != CURLE_OK)
		return PM_PYROSCOPE_RETRY;
	if (status >= 200 && status < 300)
		return PM_PYROSCOPE_SENT;
	if (status == 429 || status == 408 || status >= 500 || status < 200)
		return PM_PYROSCOPE_RETRY;
	return PM_PYROSCOPE_REJECTED;
}

static int pyroscope__body(struct pm_pyroscope *p, const struct pm_pyroscope_window *w,
			   curl_mime **mime)
{
	curl_mimepart *part;

	*mime = pm_libcurl.mime_init(p->curl);
	if (!*mime)
		return -ENOMEM;
	part = pm_libcurl.mime_addpart(*mime);
	if (!part || pm_libcurl.mime_name(part, "profile") ||
	    pm_libcurl.mime_filename(part, "profile.pprof") ||
	    pm_libcurl.mime_type(part, "application/octet-stream") ||
	    pm_libcurl.mime_data(part, w->data, w->len))
		return -ENOMEM;
	return 0;
}

enum pm_pyroscope_result pm_pyroscope__send(struct pm_pyroscope *p,
					    const struct pm_pyroscope_window *w,
					    long *status, char *err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	char *url = pyroscope__url(p, w);
	curl_mime *mime = NULL;
	CURLcode rc = CURLE_OUT_OF_MEMORY;

	*status = 0;
	if (url && !pyroscope__body(p, w, &mime)) {
		pm_libcurl.easy_reset(p->curl);
		pm_libcurl.easy_setopt(p->curl, CURLOPT_URL, url);
		pm_libcurl.easy_setopt(p->curl, CURLOPT_MIMEPOST, mime);
		pm_libcurl.easy_setopt(p->curl, CURLOPT_HTTPHEADER, p->headers);
		/* Threads and signals: no alarm() for the resolver's timeout. */
		pm_libcurl.easy_setopt(p->curl, CURLOPT_NOSIGNAL, 1L);
		pm_libcurl.easy_setopt(p->curl, CURLOPT_TIMEOUT_MS, p->timeout_ms);
		pm_libcurl.easy_setopt(p->curl, CURLOPT_CONNECTTIMEOUT_MS, p->timeout_ms);
		pm_libcurl.easy_setopt(p->curl, CURLOPT_WRITEFUNCTION, pyroscope__discard);
		pm_libcurl.easy_setopt(p->curl, CURLOPT_ERRORBUFFER, errbuf);
		pm_libcurl.easy_setopt(p->curl, CURLOPT_USERAGENT, "pmrec-agent");
		rc = pm_libcurl.easy_perform(p->curl);
		pm_libcurl.easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, status);
		pm_libcurl.easy_setopt(p->curl, CURLOPT_ERRORBUFFER, NULL);
	}
	if (err)
		snprintf(err, PM_PYROSCOPE_ERRLEN, "%s",
			 rc == CURLE_OK ? "" : *errbuf ? errbuf : pm_libcurl.easy_strerror(rc));
	pm_libcurl.mime_free(mime);
	free(url);
	return pyroscope__classify(rc, *status);
}

char *pm_pyroscope__series(const char *app, const char *hostname, const char *tags)
{
	char *s = NULL;

	if (asprintf(&s, "%s{hostname=%s,service_name=%s%s%s}", app, hostname, app,
		     tags && *tags ? "," : "", tags ? tags : "") < 0)
		return NULL;
	return s;
}
