/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The logger: one line per event on stderr,
 * "2026-11-30T05:25:33.123Z INFO  [component] message".
 */
#ifndef KC_LOG_H
#define KC_LOG_H

typedef enum { KC_LOG_DEBUG = 0, KC_LOG_INFO, KC_LOG_WARN, KC_LOG_ERROR } kc_log_level_t;

/* Lines below this level are dropped; default KC_LOG_INFO. */
void kc_log_set_level(kc_log_level_t level);
kc_log_level_t kc_log_get_level(void);
/* Parses "debug", "info", "warn", "error"; returns 0 or -1. */
int kc_log_parse_level(const char *s, kc_log_level_t *out);

void kc_log(kc_log_level_t level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define kc_log_debug(comp, ...) kc_log(KC_LOG_DEBUG, comp, __VA_ARGS__)
#define kc_log_info(comp, ...) kc_log(KC_LOG_INFO, comp, __VA_ARGS__)
#define kc_log_warn(comp, ...) kc_log(KC_LOG_WARN, comp, __VA_ARGS__)
#define kc_log_error(comp, ...) kc_log(KC_LOG_ERROR, comp, __VA_ARGS__)

#endif
