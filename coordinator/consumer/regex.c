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
#include <string.h>

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

/* ---- RE2 syntax ----------------------------------------------------------
 *
 * Kafka compiles subscription regexes with RE2/J (RE2's syntax, Perl flags)
 * and answers a pattern RE2/J refuses with its error's description. This
 * walks a pattern as RE2's parser does, left to right, and returns the
 * description of the first error it meets (NULL when the syntax is RE2's):
 * constructs PCRE2 would take but RE2 does not (lookaround, backreferences,
 * possessive or stacked quantifiers, atomic groups, repeat counts above
 * 1000, escapes RE2 does not know) are refused the same way. */

#define RE2_MAX_REPEAT 1000

static bool re2_isalnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool re2_is_word(unsigned char c) { return re2_isalnum(c) || c == '_'; }

/* {n}, {n,} or {n,m} at *i: 1 when it is one (min/max set, *i past it), 0
 * when the brace is a literal. */
static int re2_repeat(const char *p, size_t len, size_t *i, long *min, long *max)
{
    size_t j = *i + 1;
    long a = -1, b = -1;
    size_t d = j;
    while (j < len && p[j] >= '0' && p[j] <= '9') {
        a = (a < 0 ? 0 : a) * 10 + (p[j] - '0');
        if (a > 100000)
            a = 100000;
        j++;
    }
    if (j == d)
        return 0;
    if (j < len && p[j] == ',') {
        j++;
        size_t e = j;
        while (j < len && p[j] >= '0' && p[j] <= '9') {
            b = (b < 0 ? 0 : b) * 10 + (p[j] - '0');
            if (b > 100000)
                b = 100000;
            j++;
        }
        if (j == e)
            b = -1; /* {n,} */
    } else {
        b = a;
    }
    if (j >= len || p[j] != '}')
        return 0;
    *i = j + 1;
    *min = a;
    *max = b;
    return 1;
}

/* An escape at p[*i] == '\\' outside or inside a class; advances *i.
 * Returns an error description or NULL; *is_class says \d \pL and the like
 * (no single character, so no range end inside a class). */
static const char *re2_escape(const char *p, size_t len, size_t *i, bool in_class, bool *is_class,
                              long *ch)
{
    *is_class = false;
    size_t j = *i + 1;
    if (j >= len)
        return "trailing backslash at end of expression";
    unsigned char c = (unsigned char)p[j];
    *ch = c;
    if (!in_class && (c == 'A' || c == 'z' || c == 'b' || c == 'B')) {
        *is_class = true;
        *i = j + 1;
        return NULL;
    }
    if (c == 'd' || c == 'D' || c == 's' || c == 'S' || c == 'w' || c == 'W') {
        *is_class = true;
        *i = j + 1;
        return NULL;
    }
    if (c == 'p' || c == 'P') {
        *is_class = true;
        j++;
        if (j >= len)
            return "invalid character class range";
        if (p[j] == '{') {
            size_t e = j + 1;
            while (e < len && p[e] != '}')
                e++;
            if (e >= len)
                return "invalid character class range";
            j = e + 1;
        } else {
            j++;
        }
        *i = j;
        return NULL; /* the name itself is checked by PCRE2 below */
    }
    if (c >= '1' && c <= '7') {
        /* A single non-zero digit would be a backreference. */
        if (j + 1 >= len || p[j + 1] < '0' || p[j + 1] > '7')
            return "invalid escape sequence";
    }
    if (c >= '0' && c <= '7') {
        long v = 0;
        size_t k = j;
        for (int n = 0; n < 3 && k < len && p[k] >= '0' && p[k] <= '7'; n++, k++)
            v = v * 8 + (p[k] - '0');
        *ch = v;
        *i = k;
        return NULL;
    }
    if (c == 'x') {
        j++;
        if (j >= len)
            return "invalid escape sequence";
        long v = 0;
        if (p[j] == '{') {
            size_t k = j + 1, n = 0;
            for (; k < len && p[k] != '}'; k++, n++) {
                int h = p[k] >= '0' && p[k] <= '9'   ? p[k] - '0'
                        : p[k] >= 'a' && p[k] <= 'f' ? p[k] - 'a' + 10
                        : p[k] >= 'A' && p[k] <= 'F' ? p[k] - 'A' + 10
                                                     : -1;
                if (h < 0)
                    return "invalid escape sequence";
                v = v * 16 + h;
                if (v > 0x10FFFF)
                    return "invalid escape sequence";
            }
            if (k >= len || n == 0)
                return "invalid escape sequence";
            *ch = v;
            *i = k + 1;
            return NULL;
        }
        for (int n = 0; n < 2; n++, j++) {
            int h = j >= len                       ? -1
                    : p[j] >= '0' && p[j] <= '9'   ? p[j] - '0'
                    : p[j] >= 'a' && p[j] <= 'f'   ? p[j] - 'a' + 10
                    : p[j] >= 'A' && p[j] <= 'F'   ? p[j] - 'A' + 10
                                                   : -1;
            if (h < 0)
                return "invalid escape sequence";
            v = v * 16 + h;
        }
        *ch = v;
        *i = j;
        return NULL;
    }
    static const char simple[] = "afnrtv";
    static const long simple_v[] = {7, 12, 10, 13, 9, 11};
    for (int k = 0; simple[k]; k++)
        if (c == (unsigned char)simple[k]) {
            *ch = simple_v[k];
            *i = j + 1;
            return NULL;
        }
    if (c < 0x80 && !re2_isalnum(c)) {
        *i = j + 1;
        return NULL; /* an escaped punctuation character is itself */
    }
    return "invalid escape sequence";
}

static const char *re2_class(const char *p, size_t len, size_t *i)
{
    static const char *const posix[] = {"alnum", "alpha", "ascii", "blank", "cntrl", "digit",
                                        "graph", "lower", "print", "punct", "space", "upper",
                                        "word",  "xdigit", NULL};
    size_t j = *i + 1;
    if (j < len && p[j] == '^')
        j++;
    bool first = true;
    while (j >= len || p[j] != ']' || first) {
        if (j >= len)
            return "missing closing ]";
        first = false;
        if (p[j] == '[' && j + 1 < len && p[j + 1] == ':') {
            size_t e = j + 2;
            while (e + 1 < len && !(p[e] == ':' && p[e + 1] == ']'))
                e++;
            if (e + 1 < len) {
                size_t nb = j + 2;
                if (nb < e && p[nb] == '^')
                    nb++;
                bool known = false;
                for (int k = 0; posix[k]; k++)
                    if (strlen(posix[k]) == e - nb && memcmp(posix[k], p + nb, e - nb) == 0)
                        known = true;
                if (!known)
                    return "invalid character class range";
                j = e + 2;
                continue;
            }
        }
        long lo, hi;
        bool cls = false;
        if (p[j] == '\\') {
            const char *e = re2_escape(p, len, &j, true, &cls, &lo);
            if (e)
                return e;
            if (cls)
                continue;
        } else {
            lo = (unsigned char)p[j++];
        }
        if (j + 1 < len && p[j] == '-' && p[j + 1] != ']') {
            j++;
            if (p[j] == '\\') {
                const char *e = re2_escape(p, len, &j, true, &cls, &hi);
                if (e)
                    return e;
                if (cls)
                    return "invalid character class range";
            } else {
                hi = (unsigned char)p[j++];
            }
            if (hi < lo)
                return "invalid character class range";
        }
    }
    *i = j + 1;
    return NULL;
}

static const char *re2_check(const char *p, size_t len)
{
    int depth = 0;
    bool operand = false;  /* something a repetition may follow */
    bool repeated = false; /* the last token was a repetition */
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)p[i];
        bool was_repeat = repeated;
        repeated = false;
        switch (c) {
        case '(':
            if (i + 1 < len && p[i + 1] == '?') {
                size_t j = i + 2;
                if (j < len && (p[j] == '<' || (p[j] == 'P' && j + 1 < len && p[j + 1] == '<'))) {
                    size_t nb = p[j] == 'P' ? j + 2 : j + 1, e = nb;
                    while (e < len && p[e] != '>')
                        e++;
                    if (e >= len || e == nb)
                        return "invalid named capture";
                    for (size_t k = nb; k < e; k++)
                        if (!re2_is_word((unsigned char)p[k]))
                            return "invalid named capture";
                    i = e + 1;
                } else {
                    /* Flags: (?flags) or (?flags:re), flags from imsU, one '-'. */
                    bool neg = false, any = false;
                    for (;; j++) {
                        if (j >= len)
                            return "invalid or unsupported Perl syntax";
                        char f = p[j];
                        if (f == 'i' || f == 'm' || f == 's' || f == 'U') {
                            any = true;
                            continue;
                        }
                        if (f == '-' && !neg) {
                            neg = true;
                            any = false;
                            continue;
                        }
                        if ((f == ':' || f == ')') && !(neg && !any)) {
                            if (f == ')') {
                                i = j + 1;
                                operand = false;
                                goto next;
                            }
                            i = j + 1;
                            break;
                        }
                        return "invalid or unsupported Perl syntax";
                    }
                }
            } else {
                i++;
            }
            depth++;
            operand = false;
            break;
        case ')':
            if (depth == 0)
                return "regexp/syntax: internal error";
            depth--;
            operand = true;
            i++;
            break;
        case '|':
            operand = false;
            i++;
            break;
        case '^':
        case '$':
            operand = true;
            i++;
            break;
        case '*':
        case '+':
        case '?':
        case '{': {
            long min = 0, max = 0;
            size_t j = i;
            if (c == '{') {
                if (!re2_repeat(p, len, &j, &min, &max)) {
                    operand = true; /* a literal brace */
                    i++;
                    break;
                }
            } else {
                j = i + 1;
            }
            if (!operand)
                return "missing argument to repetition operator";
            if (j < len && p[j] == '?')
                j++;
            if (was_repeat)
                return "invalid nested repetition operator";
            if (c == '{' && (min > RE2_MAX_REPEAT || max > RE2_MAX_REPEAT || (max >= 0 && max < min)))
                return "invalid repeat count";
            repeated = true;
            i = j;
            break;
        }
        case '[': {
            const char *e = re2_class(p, len, &i);
            if (e)
                return e;
            operand = true;
            break;
        }
        case '\\': {
            if (i + 1 < len && p[i + 1] == 'Q') {
                /* \Q...\E: literal text up to \E or the end. */
                size_t j = i + 2;
                while (j < len && !(p[j] == '\\' && j + 1 < len && p[j + 1] == 'E'))
                    j++;
                operand = operand || j > i + 2;
                i = j < len ? j + 2 : len;
                break;
            }
            bool cls;
            long ch;
            const char *e = re2_escape(p, len, &i, false, &cls, &ch);
            if (e)
                return e;
            operand = true;
            break;
        }
        default:
            operand = true;
            i++;
            break;
        }
    next:;
    }
    if (depth > 0)
        return "missing closing )";
    return NULL;
}

kc_regex_t *kc_regex_compile(const char *pattern, size_t len, char *err, size_t errcap)
{
    const char *re2 = re2_check(pattern, len);
    if (re2) {
        if (err && errcap)
            snprintf(err, errcap, "%s", re2);
        return NULL;
    }
    int code = 0;
    PCRE2_SIZE off = 0;
    /* ANCHORED + ENDANCHORED: the whole subject must match, backtracking
     * into alternatives as Matcher.matches() does. */
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, len,
                                   PCRE2_UTF | PCRE2_ANCHORED | PCRE2_ENDANCHORED, &code, &off,
                                   NULL);
    if (!re) {
        /* RE2 reads a '-' after a class escape inside a class ([\d-z]) as
         * itself, where PCRE2 sees a bad range: escape such dashes. */
        char *alt = kc_xmalloc(2 * len + 1);
        size_t o = 0;
        bool in_class = false;
        for (size_t k = 0; k < len; k++) {
            char ch = pattern[k];
            alt[o++] = ch;
            if (ch == '\\' && k + 1 < len) {
                char e = pattern[++k];
                alt[o++] = e;
                if (in_class && strchr("dDsSwW", e) && k + 1 < len && pattern[k + 1] == '-' &&
                    k + 2 < len && pattern[k + 2] != ']') {
                    alt[o++] = '\\';
                    alt[o++] = pattern[++k];
                }
                continue;
            }
            if (ch == '[' && !in_class) {
                in_class = true;
                if (k + 1 < len && pattern[k + 1] == '^')
                    alt[o++] = pattern[++k];
                if (k + 1 < len && pattern[k + 1] == ']')
                    alt[o++] = pattern[++k];
            } else if (ch == ']' && in_class) {
                in_class = false;
            }
        }
        re = pcre2_compile((PCRE2_SPTR)alt, o, PCRE2_UTF | PCRE2_ANCHORED | PCRE2_ENDANCHORED,
                           &code, &off, NULL);
        free(alt);
    }
    if (!re) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
            snprintf((char *)msg, sizeof(msg), "error %d", code);
        /* RE2's syntax, yet PCRE2 refuses it: in practice an unknown
         * Unicode class name, which RE2 calls a bad range too. */
        (void)off;
        if (err && errcap)
            snprintf(err, errcap, "%s", "invalid character class range");
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
