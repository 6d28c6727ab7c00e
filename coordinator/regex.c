/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Subscription regexes of consumer groups (KIP-848 SubscribedTopicRegex),
 * compiled with PCRE2 and matched against whole topic names, as Kafka's
 * TopicRegexResolver does with java.util.regex Pattern.matcher().matches().
 * PCRE2's syntax covers what topic regexes commonly use (classes,
 * quantifiers, alternation, groups, \d \w \s, lookarounds); Java-only
 * constructs (e.g. \p{javaLowerCase}, possessive class intersections
 * [a-z&&[^b]]) do not compile and are answered INVALID_REGULAR_EXPRESSION.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>

#include "consumer_int.h"

/* Backtracking budget of one match: a pathological pattern such as (a+)+b
 * gives up (no match) instead of stalling the coordinator, which resolves
 * regexes on its own thread where Kafka uses an executor. */
#define MATCH_LIMIT 200000
#define DEPTH_LIMIT 10000

struct kc_regex {
    pcre2_code *code;
    pcre2_match_data *md;
    pcre2_match_context *mc;
};

kc_regex_t *kc_regex_compile(const char *pattern, size_t len, char *err, size_t errcap)
{
    int code = 0;
    PCRE2_SIZE off = 0;
    /* ANCHORED + ENDANCHORED: the whole subject must match, backtracking
     * into alternatives as Matcher.matches() does. */
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, len,
                                   PCRE2_UTF | PCRE2_ANCHORED | PCRE2_ENDANCHORED, &code, &off,
                                   NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
            snprintf((char *)msg, sizeof(msg), "error %d", code);
        if (err && errcap)
            snprintf(err, errcap, "%s at offset %zu", (const char *)msg, (size_t)off);
        return NULL;
    }
    kc_regex_t *r = kc_xcalloc(1, sizeof(*r));
    r->code = re;
    r->md = pcre2_match_data_create_from_pattern(re, NULL);
    r->mc = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(r->mc, MATCH_LIMIT);
    pcre2_set_depth_limit(r->mc, DEPTH_LIMIT);
    return r;
}

bool kc_regex_matches(kc_regex_t *re, const char *subject, size_t len)
{
    return pcre2_match(re->code, (PCRE2_SPTR)subject, len, 0, 0, re->md, re->mc) >= 0;
}

void kc_regex_free(kc_regex_t *re)
{
    if (!re)
        return;
    pcre2_match_context_free(re->mc);
    pcre2_match_data_free(re->md);
    pcre2_code_free(re->code);
    free(re);
}
