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
 * constructs PCRE2 would take but RE2 does not are refused the same way.
 *
 *   what RE2 refuses                                RE2/J's description
 *   (?=re) (?!re) (?>re) (?#c) (?P=name),           invalid or unsupported Perl syntax
 *     flags other than imsU, (?-) (?i-)
 *   (?<=re) (?<!re), (?<> (?<a-b>, (?P<name         invalid named capture
 *     without a closing >
 *   \1 to \7 alone (backreferences), \8 \9, \e \c   invalid escape sequence
 *     \k \G \Z and other unknown letters, \x
 *     without two hex digits, \x{} empty or above 10FFFF
 *   \ at the end                                    trailing backslash at end of expression
 *   a** a*+ a++ a{2}{3} (stacked or possessive)     invalid nested repetition operator
 *   * + ? {n} with nothing before (or after ( |)    missing argument to repetition operator
 *   {n,m} with n or m above 1000, or m < n          invalid repeat count
 *   [z-a] [a-\d] [[:foo:]], \p without a name,      invalid character class range
 *     \p{ without }
 *   [ without ]                                     missing closing ]
 *   ( without )                                     missing closing )
 *   ) without (                                     regexp/syntax: internal error
 */

#define RE2_MAX_REPEAT 1000

/* RE2/J's error descriptions, named as its parser names them. */
#define RE2_ERR_INTERNAL_ERROR "regexp/syntax: internal error"
#define RE2_ERR_INVALID_CHAR_RANGE "invalid character class range"
#define RE2_ERR_INVALID_ESCAPE "invalid escape sequence"
#define RE2_ERR_INVALID_NAMED_CAPTURE "invalid named capture"
#define RE2_ERR_INVALID_PERL_OP "invalid or unsupported Perl syntax"
#define RE2_ERR_INVALID_REPEAT_OP "invalid nested repetition operator"
#define RE2_ERR_INVALID_REPEAT_SIZE "invalid repeat count"
#define RE2_ERR_MISSING_BRACKET "missing closing ]"
#define RE2_ERR_MISSING_PAREN "missing closing )"
#define RE2_ERR_MISSING_REPEAT_ARGUMENT "missing argument to repetition operator"
#define RE2_ERR_TRAILING_BACKSLASH "trailing backslash at end of expression"

/* The walk's state: the pattern, the position and what came before. */
typedef struct {
    const char *p;
    size_t len, i;
    int depth;         /* groups open */
    bool operand;      /* something a repetition may follow */
    bool repeated;     /* this token is a repetition */
    bool after_repeat; /* the token before this one was a repetition */
} re2_parser_t;

static bool re2_isalnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool re2_is_word(unsigned char c) { return re2_isalnum(c) || c == '_'; }

/* The decimal number at *j (capped at 100000, past any valid count), -1
 * when there are no digits; *j moves past them. */
static long re2_number(const re2_parser_t *ps, size_t *j)
{
    long v = -1;
    for (; *j < ps->len && ps->p[*j] >= '0' && ps->p[*j] <= '9'; (*j)++) {
        v = (v < 0 ? 0 : v) * 10 + (ps->p[*j] - '0');
        if (v > 100000)
            v = 100000;
    }
    return v;
}

/* {n}, {n,} or {n,m} at ps->i: true when it is one (min, max set, max -1
 * for {n,}, *end past it), false when the brace is a literal. */
static bool re2_repeat_count(const re2_parser_t *ps, size_t *end, long *min, long *max)
{
    size_t j = ps->i + 1;
    long a = re2_number(ps, &j), b = a;
    if (a < 0)
        return false;
    if (j < ps->len && ps->p[j] == ',') {
        j++;
        b = re2_number(ps, &j);
    }
    if (j >= ps->len || ps->p[j] != '}')
        return false;
    *end = j + 1;
    *min = a;
    *max = b;
    return true;
}

/* The value of the hex digit at p[j], -1 when it is none or past the end. */
static int re2_hex_digit(const re2_parser_t *ps, size_t j)
{
    if (j >= ps->len)
        return -1;
    char c = ps->p[j];
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* \xHH or \x{H...} (at most 10FFFF), ps->i past the x. */
static const char *re2_hex_escape(re2_parser_t *ps, long *ch)
{
    size_t j = ps->i;
    long v = 0;
    if (j >= ps->len)
        return RE2_ERR_INVALID_ESCAPE;
    if (ps->p[j] == '{') {
        size_t k = j + 1;
        for (; k < ps->len && ps->p[k] != '}'; k++) {
            int h = re2_hex_digit(ps, k);
            if (h < 0)
                return RE2_ERR_INVALID_ESCAPE;
            v = v * 16 + h;
            if (v > 0x10FFFF)
                return RE2_ERR_INVALID_ESCAPE;
        }
        if (k >= ps->len || k == j + 1)
            return RE2_ERR_INVALID_ESCAPE;
        *ch = v;
        ps->i = k + 1;
        return NULL;
    }
    for (int n = 0; n < 2; n++, j++) {
        int h = re2_hex_digit(ps, j);
        if (h < 0)
            return RE2_ERR_INVALID_ESCAPE;
        v = v * 16 + h;
    }
    *ch = v;
    ps->i = j;
    return NULL;
}

/* An octal escape, ps->i at its first digit (0 to 7), up to three digits;
 * a single non-zero digit would be a backreference. */
static const char *re2_octal_escape(re2_parser_t *ps, long *ch)
{
    const char *p = ps->p;
    size_t j = ps->i;
    if (p[j] >= '1' && (j + 1 >= ps->len || p[j + 1] < '0' || p[j + 1] > '7'))
        return RE2_ERR_INVALID_ESCAPE;
    long v = 0;
    for (int n = 0; n < 3 && j < ps->len && p[j] >= '0' && p[j] <= '7'; n++, j++)
        v = v * 8 + (p[j] - '0');
    *ch = v;
    ps->i = j;
    return NULL;
}

/* The name of \p or \P, ps->i past the letter: one character or {name}
 * (the name itself is checked by PCRE2 below). */
static const char *re2_unicode_class(re2_parser_t *ps)
{
    size_t j = ps->i;
    if (j >= ps->len)
        return RE2_ERR_INVALID_CHAR_RANGE;
    if (ps->p[j] == '{') {
        size_t e = j + 1;
        while (e < ps->len && ps->p[e] != '}')
            e++;
        if (e >= ps->len)
            return RE2_ERR_INVALID_CHAR_RANGE;
        j = e;
    }
    ps->i = j + 1;
    return NULL;
}

/* An escape at ps->i (the backslash) outside or inside a class; moves
 * ps->i past it. *is_class says \d \pL and the like (no single character,
 * so no range end inside a class), *ch is the character otherwise. */
static const char *re2_escape(re2_parser_t *ps, bool in_class, bool *is_class, long *ch)
{
    static const char simple[] = "afnrtv";
    static const long simple_v[] = {7, 12, 10, 13, 9, 11};
    size_t j = ps->i + 1;
    *is_class = false;
    if (j >= ps->len)
        return RE2_ERR_TRAILING_BACKSLASH;
    unsigned char c = (unsigned char)ps->p[j];
    *ch = c;
    if ((!in_class && (c == 'A' || c == 'z' || c == 'b' || c == 'B')) || c == 'd' || c == 'D' ||
        c == 's' || c == 'S' || c == 'w' || c == 'W') {
        *is_class = true;
        ps->i = j + 1;
        return NULL;
    }
    if (c == 'p' || c == 'P') {
        *is_class = true;
        ps->i = j + 1;
        return re2_unicode_class(ps);
    }
    if (c >= '0' && c <= '7') {
        ps->i = j;
        return re2_octal_escape(ps, ch);
    }
    if (c == 'x') {
        ps->i = j + 1;
        return re2_hex_escape(ps, ch);
    }
    for (int k = 0; simple[k]; k++)
        if (c == (unsigned char)simple[k]) {
            *ch = simple_v[k];
            ps->i = j + 1;
            return NULL;
        }
    if (c < 0x80 && !re2_isalnum(c)) {
        ps->i = j + 1;
        return NULL; /* an escaped punctuation character is itself */
    }
    return RE2_ERR_INVALID_ESCAPE;
}

/* [:name:] or [:^name:] at ps->i inside a class: *done when it is one
 * (ps->i past it); a [: without a closing :] is a plain '['. */
static const char *re2_posix_class(re2_parser_t *ps, bool *done)
{
    static const char *const posix[] = {"alnum", "alpha", "ascii", "blank", "cntrl", "digit",
                                        "graph", "lower", "print", "punct", "space", "upper",
                                        "word",  "xdigit", NULL};
    const char *p = ps->p;
    size_t j = ps->i;
    *done = false;
    if (p[j] != '[' || j + 1 >= ps->len || p[j + 1] != ':')
        return NULL;
    size_t e = j + 2;
    while (e + 1 < ps->len && !(p[e] == ':' && p[e + 1] == ']'))
        e++;
    if (e + 1 >= ps->len)
        return NULL;
    size_t nb = j + 2;
    if (nb < e && p[nb] == '^')
        nb++;
    for (int k = 0; posix[k]; k++)
        if (strlen(posix[k]) == e - nb && memcmp(posix[k], p + nb, e - nb) == 0) {
            *done = true;
            ps->i = e + 2;
            return NULL;
        }
    return RE2_ERR_INVALID_CHAR_RANGE;
}

/* One character of a class at ps->i, itself or an escape (see re2_escape). */
static const char *re2_class_char(re2_parser_t *ps, long *ch, bool *is_class)
{
    if (ps->p[ps->i] == '\\')
        return re2_escape(ps, true, is_class, ch);
    *is_class = false;
    *ch = (unsigned char)ps->p[ps->i++];
    return NULL;
}

/* [...] or [^...]: a ']' first is itself, a '-' before the ']' too; a range
 * needs single characters at both ends, in order. */
static const char *re2_class(re2_parser_t *ps)
{
    const char *p = ps->p;
    ps->i++;
    if (ps->i < ps->len && p[ps->i] == '^')
        ps->i++;
    for (bool first = true; ps->i >= ps->len || p[ps->i] != ']' || first; first = false) {
        if (ps->i >= ps->len)
            return RE2_ERR_MISSING_BRACKET;
        bool done, cls;
        long lo, hi;
        const char *e = re2_posix_class(ps, &done);
        if (e)
            return e;
        if (done)
            continue;
        if ((e = re2_class_char(ps, &lo, &cls)) != NULL)
            return e;
        if (cls || ps->i + 1 >= ps->len || p[ps->i] != '-' || p[ps->i + 1] == ']')
            continue;
        ps->i++;
        if ((e = re2_class_char(ps, &hi, &cls)) != NULL)
            return e;
        if (cls || hi < lo)
            return RE2_ERR_INVALID_CHAR_RANGE;
    }
    ps->i++;
    ps->operand = true;
    return NULL;
}

/* ---- the tokens --------------------------------------------------------- */

/* A character that stands for itself (also ^ $ and ., which a repetition
 * may follow in RE2). */
static const char *re2_literal(re2_parser_t *ps)
{
    ps->operand = true;
    ps->i++;
    return NULL;
}

/* '|': an alternation, which no repetition may follow. */
static const char *re2_alternate(re2_parser_t *ps)
{
    ps->operand = false;
    ps->i++;
    return NULL;
}

/* ')': closes a group. */
static const char *re2_group_close(re2_parser_t *ps)
{
    if (ps->depth == 0)
        return RE2_ERR_INTERNAL_ERROR;
    ps->depth--;
    ps->operand = true;
    ps->i++;
    return NULL;
}

/* (?<name> or (?P<name>, j at the '<' or 'P': a non-empty name of word
 * characters. */
static const char *re2_named_capture(re2_parser_t *ps, size_t j)
{
    size_t nb = ps->p[j] == 'P' ? j + 2 : j + 1, e = nb;
    while (e < ps->len && ps->p[e] != '>')
        e++;
    if (e >= ps->len || e == nb)
        return RE2_ERR_INVALID_NAMED_CAPTURE;
    for (size_t k = nb; k < e; k++)
        if (!re2_is_word((unsigned char)ps->p[k]))
            return RE2_ERR_INVALID_NAMED_CAPTURE;
    ps->i = e + 1;
    return NULL;
}

/* (?flags) or (?flags:re), j past the '?': flags from imsU with at most
 * one '-', which some flag must follow; *group tells (?flags:re). */
static const char *re2_flags(re2_parser_t *ps, size_t j, bool *group)
{
    bool neg = false, any = false;
    for (; j < ps->len; j++) {
        char f = ps->p[j];
        if (f == 'i' || f == 'm' || f == 's' || f == 'U') {
            any = true;
        } else if (f == '-' && !neg) {
            neg = true;
            any = false;
        } else if ((f == ':' || f == ')') && !(neg && !any)) {
            *group = f == ':';
            ps->i = j + 1;
            return NULL;
        } else {
            return RE2_ERR_INVALID_PERL_OP;
        }
    }
    return RE2_ERR_INVALID_PERL_OP;
}

/* '(': a group, plain, named or with flags; (?flags) alone opens none. */
static const char *re2_group_open(re2_parser_t *ps)
{
    const char *p = ps->p;
    size_t j = ps->i + 2;
    bool group = true;
    if (ps->i + 1 >= ps->len || p[ps->i + 1] != '?') {
        ps->i++;
    } else {
        bool named = j < ps->len && (p[j] == '<' ||
                                     (p[j] == 'P' && j + 1 < ps->len && p[j + 1] == '<'));
        const char *e = named ? re2_named_capture(ps, j) : re2_flags(ps, j, &group);
        if (e)
            return e;
    }
    if (group)
        ps->depth++;
    ps->operand = false;
    return NULL;
}

/* * + ? {n} {n,} {n,m}, each maybe non-greedy (a '?' after it): after an
 * operand, not after another repetition, counts at most RE2_MAX_REPEAT. A
 * '{' that starts no count is a literal. */
static const char *re2_repetition(re2_parser_t *ps)
{
    bool brace = ps->p[ps->i] == '{';
    long min = 0, max = 0;
    size_t j = ps->i + 1;
    if (brace && !re2_repeat_count(ps, &j, &min, &max))
        return re2_literal(ps);
    if (!ps->operand)
        return RE2_ERR_MISSING_REPEAT_ARGUMENT;
    if (j < ps->len && ps->p[j] == '?')
        j++;
    if (ps->after_repeat)
        return RE2_ERR_INVALID_REPEAT_OP;
    if (brace && (min > RE2_MAX_REPEAT || max > RE2_MAX_REPEAT || (max >= 0 && max < min)))
        return RE2_ERR_INVALID_REPEAT_SIZE;
    ps->repeated = true;
    ps->i = j;
    return NULL;
}

/* '\\': \Q...\E (literal text up to \E or the end) or an escape. */
static const char *re2_backslash(re2_parser_t *ps)
{
    const char *p = ps->p;
    if (ps->i + 1 < ps->len && p[ps->i + 1] == 'Q') {
        size_t j = ps->i + 2;
        while (j < ps->len && !(p[j] == '\\' && j + 1 < ps->len && p[j + 1] == 'E'))
            j++;
        ps->operand = ps->operand || j > ps->i + 2;
        ps->i = j < ps->len ? j + 2 : ps->len;
        return NULL;
    }
    bool cls;
    long ch;
    const char *e = re2_escape(ps, false, &cls, &ch);
    if (e)
        return e;
    ps->operand = true;
    return NULL;
}

typedef const char *(*re2_token_fn)(re2_parser_t *ps);

/* The token each character starts; NULL: a literal (re2_literal). */
static const re2_token_fn re2_tokens[256] = {
    ['('] = re2_group_open, [')'] = re2_group_close, ['|'] = re2_alternate,
    ['*'] = re2_repetition, ['+'] = re2_repetition,  ['?'] = re2_repetition,
    ['{'] = re2_repetition, ['['] = re2_class,       ['\\'] = re2_backslash,
};

/* The description of RE2's first error in the pattern, NULL when it has
 * RE2's syntax: one token after the other, then no group left open. */
static const char *re2_check(const char *p, size_t len)
{
    re2_parser_t ps = {.p = p, .len = len};
    while (ps.i < len) {
        ps.after_repeat = ps.repeated;
        ps.repeated = false;
        re2_token_fn token = re2_tokens[(unsigned char)p[ps.i]];
        const char *e = (token ? token : re2_literal)(&ps);
        if (e)
            return e;
    }
    return ps.depth > 0 ? RE2_ERR_MISSING_PAREN : NULL;
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
            snprintf(err, errcap, "%s", RE2_ERR_INVALID_CHAR_RANGE);
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
