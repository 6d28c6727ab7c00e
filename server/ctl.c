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
            "  transactions       GET /v1/transactions\n"
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

/* A command of `kcoord ctl`: the admin endpoint's request it makes. */
typedef struct {
    const char *name;
    enum evhttp_cmd_type method;
    const char *path;       /* the resource */
    const char *arg_prefix; /* joins the URI-encoded argument to path; NULL: not in the path */
    bool arg_is_body;       /* the argument is the request's JSON body */
    bool follow_opt;        /* takes --follow before its argument */
    bool health;            /* any answer exits 0 */
    int want_min, want_max; /* the arguments it takes */
} ctl_command_t;

/* The commands, as ctl_usage lists them. */
static const ctl_command_t ctl_commands[] = {
    {"health", EVHTTP_REQ_GET, "/v1/health", NULL, false, false, true, 0, 0},
    {"groups", EVHTTP_REQ_GET, "/v1/groups", NULL, false, false, false, 0, 0},
    {"group", EVHTTP_REQ_GET, "/v1/groups", "/", false, false, false, 1, 1},
    {"transactions", EVHTTP_REQ_GET, "/v1/transactions", NULL, false, false, false, 0, 0},
    {"events", EVHTTP_REQ_GET, "/v1/events", "?since=", false, true, false, 0, 1},
    {"faults", EVHTTP_REQ_GET, "/v1/faults", NULL, false, false, false, 0, 0},
    {"fault-add", EVHTTP_REQ_POST, "/v1/faults", NULL, true, false, false, 1, 1},
    {"fault-clear", EVHTTP_REQ_DELETE, "/v1/faults", "/", false, false, false, 0, 1},
    {"metrics", EVHTTP_REQ_GET, "/metrics", NULL, false, false, false, 0, 0},
};

/* The options before the command (--help, --admin URL): returns the index
 * of the command in argv, or -1 with the exit status in *exit_status. */
static int ctl_options(int argc, char **argv, const char **url, int *exit_status)
{
    int i = 0;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            ctl_usage(stdout);
            *exit_status = 0;
            return -1;
        }
        if (strcmp(argv[i], "--admin") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "kcoord ctl: --admin needs a URL\n");
                *exit_status = 1;
                return -1;
            }
            *url = argv[++i];
            continue;
        }
        break;
    }
    if (i >= argc) {
        ctl_usage(stderr);
        *exit_status = 1;
        return -1;
    }
    return i;
}

/* The command called name; NULL when there is none. */
static const ctl_command_t *ctl_find_command(const char *name)
{
    for (size_t i = 0; i < sizeof(ctl_commands) / sizeof(ctl_commands[0]); i++)
        if (strcmp(ctl_commands[i].name, name) == 0)
            return &ctl_commands[i];
    return NULL;
}

/* The request path of command c given arg (NULL: none); malloc'd, NULL
 * when out of memory. */
static char *ctl_path(const ctl_command_t *c, const char *arg)
{
    if (!arg || !c->arg_prefix)
        return strdup(c->path);
    char *path = NULL;
    char *enc = evhttp_uriencode(arg, -1, 0);
    if (enc && asprintf(&path, "%s%s%s", c->path, c->arg_prefix, enc) < 0)
        path = NULL;
    free(enc);
    return path;
}

/* Makes the request and prints the response body to stdout; returns the
 * HTTP status (0: unreachable, -1: failed before the request). */
static int ctl_run(const char *url, const ctl_command_t *c, const char *path, const char *body,
                   bool follow)
{
    struct evbuffer *out = evbuffer_new();
    if (!out)
        return -1;
    int status = ctl_request(url, c->method, path, body, follow, out);
    size_t n = evbuffer_get_length(out);
    if (n > 0) {
        fwrite(evbuffer_pullup(out, -1), 1, n, stdout);
        fflush(stdout);
    }
    evbuffer_free(out);
    return status;
}

/* The exit status for a request's HTTP status: 0 on 2xx (on any answer for
 * health), 1 on an HTTP error or a failure before the request, 2 when the
 * endpoint cannot be reached. */
static int ctl_exit_status(const char *url, const ctl_command_t *c, int status)
{
    if (status < 0)
        return 1;
    if (status == 0) {
        fprintf(stderr, "kcoord ctl: cannot reach %s (is kcoord running with admin.listeners set?)\n",
                url);
        return 2;
    }
    if (c->health)
        return 0;
    if (status >= 200 && status < 300)
        return 0;
    fprintf(stderr, "kcoord ctl: HTTP %d\n", status);
    return 1;
}

/* The options, the command and its arguments, then the command's request
 * (see kc_ctl.h for the exit statuses). */
int kc_ctl_main(int argc, char **argv)
{
    const char *url = KC_CTL_DEFAULT_URL;
    int exit_status;
    int i = ctl_options(argc, argv, &url, &exit_status);
    if (i < 0)
        return exit_status;
    const ctl_command_t *c = ctl_find_command(argv[i]);
    if (!c) {
        fprintf(stderr, "kcoord ctl: unknown command %s (try kcoord ctl --help)\n", argv[i]);
        return 1;
    }
    int nargs = argc - i - 1;
    const char *arg = nargs > 0 ? argv[i + 1] : NULL;
    bool follow = false;
    if (c->follow_opt && arg && strcmp(arg, "--follow") == 0) {
        follow = true;
        nargs--;
        arg = nargs > 0 ? argv[i + 2] : NULL;
    }
    char *path = ctl_path(c, arg);
    if (nargs < c->want_min || nargs > c->want_max) {
        fprintf(stderr, "kcoord ctl: %s takes %s argument%s\n", c->name,
                c->want_max == 0 ? "no" : c->want_min == 1 ? "one" : "at most one",
                c->want_max == 0 ? "s" : "");
        free(path);
        return 1;
    }
    if (!path) {
        fprintf(stderr, "kcoord ctl: out of memory\n");
        return 1;
    }
    int status = ctl_run(url, c, path, c->arg_is_body ? arg : NULL, follow);
    free(path);
    return ctl_exit_status(url, c, status);
}
