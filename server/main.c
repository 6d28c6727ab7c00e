/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kcoord executable: command line, configuration sources, logging level,
 * then the broker loop until SIGINT/SIGTERM.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "kc_config.h"
#include "kc_ctl.h"
#include "kc_log.h"
#include "kc_scram.h"
#include "kc_server.h"
#include "kc_version.h"

extern char **environ;

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: kcoord [--config FILE] [--override key=value]...\n"
            "       kcoord ctl [--admin URL] COMMAND   (kcoord ctl --help)\n"
            "       kcoord scram-credential USER       (SASL credentials; --help)\n"
            "A single-node Kafka broker built around Kafka's group coordinator.\n"
            "\n"
            "  --config FILE         read properties from FILE (Kafka server.properties syntax)\n"
            "  --override key=value  set one property (repeatable); wins over KCOORD_* variables,\n"
            "                        which win over the file\n"
            "  --help                show this help and the properties\n"
            "  --version             print the version\n"
            "\n"
            "Properties (default):\n");
    for (size_t i = 0; i < kc_config_property_count(); i++) {
        const kc_conf_property_t *p = kc_config_property_at(i);
        fprintf(f, "  %-42s %s (%s)\n", p->name, p->doc, p->default_value);
    }
}

/*
 * glibc's allocator, left to itself, hands each produce batch's buffers (the
 * request frame, LMDB's dirty overflow pages, about 100 KiB each) back to the
 * OS when they are freed at the top of the heap, so the next batch faults
 * fresh zeroed pages in: under a produce load most of the broker's time went
 * to page faults. Keeping up to 32 MiB of freed memory at the top of the heap
 * for reuse removes them; the idle footprint is unchanged.
 */
static void tune_allocator(void)
{
#ifdef M_TRIM_THRESHOLD
    mallopt(M_TRIM_THRESHOLD, 32 << 20);
#endif
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "ctl") == 0)
        return kc_ctl_main(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "scram-credential") == 0)
        return kc_scram_tool_main(argc - 2, argv + 2);
    tune_allocator();
    const char *config_file = NULL;
    int rc = 1;
    kc_config_t cfg;
    kc_config_init(&cfg);
    char err[1024];

    /* The file comes first whatever the argument order, so collect it first. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            kc_config_deinit(&cfg);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("kcoord %s\n", KC_VERSION);
            kc_config_deinit(&cfg);
            return 0;
        }
        if (strcmp(argv[i], "--config") == 0 || strcmp(argv[i], "--override") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "kcoord: %s needs an argument\n", argv[i]);
                goto out;
            }
            if (argv[i][2] == 'c')
                config_file = argv[i + 1];
            i++;
            continue;
        }
        fprintf(stderr, "kcoord: unknown argument %s (try --help)\n", argv[i]);
        goto out;
    }
    if (config_file && kc_config_load_file(&cfg, config_file, err, sizeof(err)) != 0) {
        fprintf(stderr, "kcoord: %s\n", err);
        goto out;
    }
    if (kc_config_load_env(&cfg, environ, err, sizeof(err)) != 0) {
        fprintf(stderr, "kcoord: %s\n", err);
        goto out;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--override") == 0) {
            if (kc_config_override(&cfg, argv[i + 1], err, sizeof(err)) != 0) {
                fprintf(stderr, "kcoord: %s\n", err);
                goto out;
            }
            i++;
        } else if (strcmp(argv[i], "--config") == 0) {
            i++;
        }
    }
    if (kc_config_validate(&cfg, err, sizeof(err)) != 0) {
        fprintf(stderr, "kcoord: %s\n", err);
        goto out;
    }
    kc_log_level_t level;
    if (kc_log_parse_level(cfg.log_level, &level) == 0)
        kc_log_set_level(level);
    kc_log_info("main", "kcoord %s starting (data in %s)", KC_VERSION, cfg.log_dirs);

    /*
     * The epoll changelist folds the mute (event_del) and unmute (event_add)
     * of a connection within one loop iteration into nothing, instead of two
     * epoll_ctl calls per request. kcoord never dup()s a socket, the case in
     * which libevent warns the changelist is unsafe. One thread: no locks.
     */
    struct event_config *ecfg = event_config_new();
    struct event_base *base = NULL;
    if (ecfg) {
        event_config_set_flag(ecfg, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
        event_config_set_flag(ecfg, EVENT_BASE_FLAG_NOLOCK);
        /* CLOCK_MONOTONIC and a timerfd instead of the coarse clock and
         * epoll's milliseconds: coordinator deadlines are kept to well
         * under a millisecond. */
        event_config_set_flag(ecfg, EVENT_BASE_FLAG_PRECISE_TIMER);
        base = event_base_new_with_config(ecfg);
        event_config_free(ecfg);
    }
    if (!base) {
        kc_log_error("main", "cannot create the event loop");
        goto out;
    }
    kc_server_t *srv = kc_server_new(&cfg, base, true);
    if (srv) {
        kc_server_install_signals(srv);
        kc_server_run(srv);
        kc_server_free(srv);
        kc_log_info("main", "stopped");
        rc = 0;
    }
    event_base_free(base);
out:
    kc_config_deinit(&cfg);
    return rc;
}
