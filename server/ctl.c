/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `kcoord ctl`: a command-line client of the admin HTTP endpoint (one request
 * over libevent's evhttp client, the response body on stdout).
 */
#include "kc_ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#define KC_CTL_DEFAULT_URL "http://127.0.0.1:9644"
#define KC_CTL_TIMEOUT_S 30

static void ctl_usage(FILE *f)
{
    fprintf(f,
            "Usage: kcoord ctl [--admin URL] COMMAND\n"
            "Talks to a running kcoord's admin endpoint (admin.listeners).\n"
            "\n"
            "  --admin URL        the endpoint (default " KC_CTL_DEFAULT_URL ")\n"
            "\n"
            "Commands:\n"
            "  health             exit 0 when the endpoint answers\n"
            "  groups             GET /v1/groups\n"
            "  group ID           GET /v1/groups/ID\n"
            "  events [SINCE]     GET /v1/events[?since=SINCE]\n"
            "  events --follow [SINCE]\n"
            "                     follow the events as they happen (server-sent\n"
            "                     events), one JSON object per line, until the\n"
            "                     endpoint closes the stream\n"
            "  faults             GET /v1/faults\n"
            "  fault-add JSON     POST /v1/faults with the JSON fault spec\n"
            "  fault-clear [ID]   DELETE /v1/faults[/ID]\n"
            "  metrics            GET /metrics\n"
            "\n"
            "Prints the response body. Exit status: 0 on HTTP 2xx, 1 on an HTTP\n"
            "error or a usage error, 2 when the endpoint cannot be reached.\n");
}

typedef struct {
    int status; /* HTTP status; 0 when no response came */
    struct evbuffer *body;
    struct event_base *base;
    bool follow; /* an event stream: print each event's data as it comes */
    struct evbuffer *pending; /* follow: bytes of an unfinished event */
} ctl_reply_t;

/* Seconds without a byte (events or the 15 s keepalives) before a followed
 * stream is given up as dead. */
#define KC_CTL_FOLLOW_TIMEOUT_S 60

/* Prints the "data:" line of every complete server-sent event in r->pending. */
static void print_events(ctl_reply_t *r)
{
    for (;;) {
        struct evbuffer_ptr end = evbuffer_search(r->pending, "\n\n", 2, NULL);
        if (end.pos < 0)
            return;
        size_t n = (size_t)end.pos + 2;
        char *frame = malloc(n + 1);
        if (!frame)
            return;
        evbuffer_remove(r->pending, frame, n);
        frame[n] = '\0';
        for (char *line = strtok(frame, "\n"); line; line = strtok(NULL, "\n"))
            if (strncmp(line, "data: ", 6) == 0)
                printf("%s\n", line + 6);
        fflush(stdout);
        free(frame);
    }
}

static void on_chunk(struct evhttp_request *rq, void *arg)
{
    ctl_reply_t *r = arg;
    r->status = evhttp_request_get_response_code(rq);
    struct evbuffer *in = evhttp_request_get_input_buffer(rq);
    if (r->status != 200) {
        evbuffer_add_buffer(r->body, in);
        return;
    }
    evbuffer_add_buffer(r->pending, in);
    print_events(r);
}

static void on_response(struct evhttp_request *rq, void *arg)
{
    ctl_reply_t *r = arg;
    if (rq) {
        r->status = evhttp_request_get_response_code(rq);
        struct evbuffer *in = evhttp_request_get_input_buffer(rq);
        if (in)
            evbuffer_add_buffer(r->follow && r->status == 200 ? r->pending : r->body, in);
        if (r->follow)
            print_events(r);
    }
    event_base_loopexit(r->base, NULL);
}

/* One request; returns the HTTP status (0: unreachable), body appended to out. */
static int ctl_request(const char *url, enum evhttp_cmd_type cmd, const char *path,
                       const char *body, bool follow, struct evbuffer *out)
{
    struct evhttp_uri *u = evhttp_uri_parse(url);
    const char *host = u ? evhttp_uri_get_host(u) : NULL;
    if (!host || !*host) {
        fprintf(stderr, "kcoord ctl: bad admin URL %s\n", url);
        if (u)
            evhttp_uri_free(u);
        return -1;
    }
    int port = evhttp_uri_get_port(u);
    if (port < 0)
        port = 80;
    const char *prefix = evhttp_uri_get_path(u);
    size_t plen = prefix ? strlen(prefix) : 0;
    while (plen > 0 && prefix[plen - 1] == '/')
        plen--;
    size_t full_len = plen + strlen(path) + 1;
    char *full = malloc(full_len);
    struct event_base *base = event_base_new();
    if (!full || !base) {
        free(full);
        if (base)
            event_base_free(base);
        evhttp_uri_free(u);
        return -1;
    }
    snprintf(full, full_len, "%.*s%s", (int)plen, prefix ? prefix : "", path);
    ctl_reply_t r = {0, out, base, follow, evbuffer_new()};
    struct evhttp_connection *conn =
        evhttp_connection_base_new(base, NULL, host, (unsigned short)port);
    struct evhttp_request *rq = conn ? evhttp_request_new(on_response, &r) : NULL;
    if (!rq) {
        if (conn)
            evhttp_connection_free(conn);
        event_base_free(base);
        free(full);
        evhttp_uri_free(u);
        return -1;
    }
    evhttp_connection_set_timeout(conn, follow ? KC_CTL_FOLLOW_TIMEOUT_S : KC_CTL_TIMEOUT_S);
    evhttp_connection_set_retries(conn, 0);
    struct evkeyvalq *h = evhttp_request_get_output_headers(rq);
    evhttp_add_header(h, "Host", host);
    evhttp_add_header(h, "Connection", "close");
    if (follow) {
        evhttp_add_header(h, "Accept", "text/event-stream");
        evhttp_request_set_chunked_cb(rq, on_chunk);
    }
    if (body) {
        evhttp_add_header(h, "Content-Type", "application/json");
        evbuffer_add(evhttp_request_get_output_buffer(rq), body, strlen(body));
    }
    /* On failure evhttp_make_request frees rq itself. */
    if (evhttp_make_request(conn, rq, cmd, full) == 0)
        event_base_dispatch(base);
    evhttp_connection_free(conn);
    event_base_free(base);
    evbuffer_free(r.pending);
    free(full);
    evhttp_uri_free(u);
    return r.status;
}

int kc_ctl_main(int argc, char **argv)
{
    const char *url = KC_CTL_DEFAULT_URL;
    int i = 0;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            ctl_usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--admin") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "kcoord ctl: --admin needs a URL\n");
                return 1;
            }
            url = argv[++i];
            continue;
        }
        break;
    }
    if (i >= argc) {
        ctl_usage(stderr);
        return 1;
    }
    const char *cmd = argv[i];
    int nargs = argc - i - 1;
    const char *arg = nargs > 0 ? argv[i + 1] : NULL;
    enum evhttp_cmd_type method = EVHTTP_REQ_GET;
    const char *body = NULL;
    char *path = NULL;
    bool health = false, follow = false;
    int want_min = 0, want_max = 0;
    if (strcmp(cmd, "health") == 0) {
        path = strdup("/v1/health");
        health = true;
    } else if (strcmp(cmd, "groups") == 0) {
        path = strdup("/v1/groups");
    } else if (strcmp(cmd, "group") == 0) {
        want_min = want_max = 1;
        char *enc = arg ? evhttp_uriencode(arg, -1, 0) : NULL;
        if (enc && asprintf(&path, "/v1/groups/%s", enc) < 0)
            path = NULL;
        free(enc);
    } else if (strcmp(cmd, "events") == 0) {
        if (arg && strcmp(arg, "--follow") == 0) {
            follow = true;
            nargs--;
            arg = nargs > 0 ? argv[i + 2] : NULL;
        }
        want_max = 1;
        char *enc = arg ? evhttp_uriencode(arg, -1, 0) : NULL;
        if (!arg)
            path = strdup("/v1/events");
        else if (enc && asprintf(&path, "/v1/events?since=%s", enc) < 0)
            path = NULL;
        free(enc);
    } else if (strcmp(cmd, "faults") == 0) {
        path = strdup("/v1/faults");
    } else if (strcmp(cmd, "fault-add") == 0) {
        want_min = want_max = 1;
        method = EVHTTP_REQ_POST;
        body = arg;
        path = strdup("/v1/faults");
    } else if (strcmp(cmd, "fault-clear") == 0) {
        want_max = 1;
        method = EVHTTP_REQ_DELETE;
        char *enc = arg ? evhttp_uriencode(arg, -1, 0) : NULL;
        if (!arg)
            path = strdup("/v1/faults");
        else if (enc && asprintf(&path, "/v1/faults/%s", enc) < 0)
            path = NULL;
        free(enc);
    } else if (strcmp(cmd, "metrics") == 0) {
        path = strdup("/metrics");
    } else {
        fprintf(stderr, "kcoord ctl: unknown command %s (try kcoord ctl --help)\n", cmd);
        return 1;
    }
    if (nargs < want_min || nargs > want_max) {
        fprintf(stderr, "kcoord ctl: %s takes %s argument%s\n", cmd,
                want_max == 0 ? "no" : want_min == 1 ? "one" : "at most one",
                want_max == 0 ? "s" : "");
        free(path);
        return 1;
    }
    if (!path) {
        fprintf(stderr, "kcoord ctl: out of memory\n");
        return 1;
    }
    struct evbuffer *out = evbuffer_new();
    if (!out) {
        free(path);
        return 1;
    }
    int status = ctl_request(url, method, path, body, follow, out);
    free(path);
    size_t n = evbuffer_get_length(out);
    if (n > 0) {
        fwrite(evbuffer_pullup(out, -1), 1, n, stdout);
        fflush(stdout);
    }
    evbuffer_free(out);
    if (status < 0)
        return 1;
    if (status == 0) {
        fprintf(stderr, "kcoord ctl: cannot reach %s\n", url);
        return 2;
    }
    if (health)
        return 0;
    if (status >= 200 && status < 300)
        return 0;
    fprintf(stderr, "kcoord ctl: HTTP %d\n", status);
    return 1;
}
