/* SPDX-License-Identifier: Apache-2.0 */
/* The stderr logger; see kc_log.h. */
#include "kc_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>

static kc_log_level_t min_level = KC_LOG_INFO;

void kc_log_set_level(kc_log_level_t level)
{
    min_level = level;
}

kc_log_level_t kc_log_get_level(void)
{
    return min_level;
}

int kc_log_parse_level(const char *s, kc_log_level_t *out)
{
    static const char *names[] = {"debug", "info", "warn", "error"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(s, names[i]) == 0) {
            *out = (kc_log_level_t)i;
            return 0;
        }
    }
    return -1;
}

void kc_log(kc_log_level_t level, const char *component, const char *fmt, ...)
{
    static const char *names[] = {"DEBUG", "INFO ", "WARN ", "ERROR"};
    if (level < min_level)
        return;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char line[2048];
    int n = snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ %s [%s] ",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                     tm.tm_sec, (int)(tv.tv_usec / 1000), names[level], component);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof(line))
        vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = strnlen(line, sizeof(line) - 2);
    line[len++] = '\n';
    fwrite(line, 1, len, stderr);
}
