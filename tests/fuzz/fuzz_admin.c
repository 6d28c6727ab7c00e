/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target for what the admin HTTP endpoint (server/admin.c,
 * server/faults.c) parses from a client. Input: one byte whose low two bits
 * select the part, then the text:
 *   0, 1  the JSON body of POST /v1/faults (kc_faults_parse_spec); a spec
 *         that parses is one kcoord can apply (a known kind, an API it
 *         serves or none, a positive count or none, an error code for
 *         error and coordinator faults, a deadline from duration_ms) and
 *         names no field but the known ones, a refused one says why
 *   2     the query string of GET /v1/events (kc_admin_events_query) and
 *         the same text as a Last-Event-ID (kc_admin_parse_seq)
 *   3     the id of DELETE /v1/faults/<id> (kc_admin_fault_id)
 */
#include <limits.h>
#include <string.h>

#include <jansson.h>

#include "kc_fuzz.h"
#include "server_int.h"

#define NOW_MS 123456789

static char *cstr(const uint8_t *d, size_t n)
{
    char *s = kc_xmalloc(n + 1);
    if (n)
        memcpy(s, d, n);
    s[n] = '\0';
    return s;
}

/* True when the JSON object text names only the fields of a fault spec. */
static bool only_known_fields(const char *text, size_t n)
{
    static const char *const known[] = {"type",        "api_key",  "error_code", "count",
                                        "duration_ms", "delay_ms", "group_id",   "client_id"};
    json_t *o = json_loadb(text, n, 0, NULL);
    const char *key;
    json_t *v;
    bool ok = o != NULL;
    json_object_foreach(o, key, v) {
        bool found = false;
        for (size_t i = 0; i < KC_ARRAY_LEN(known); i++)
            found = found || strcmp(key, known[i]) == 0;
        ok = ok && found;
    }
    json_decref(o);
    return ok;
}

static void fuzz_spec(const uint8_t *d, size_t n)
{
    /* A heap copy of exactly n bytes: the parser must not read past it. */
    char *text = kc_xmalloc(n ? n : 1);
    if (n)
        memcpy(text, d, n);
    kc_fault_t spec;
    char err[256];
    int rc = kc_faults_parse_spec(text, n, NOW_MS, &spec, err, sizeof(err));
    if (rc != 0) {
        KC_FUZZ_CHECK(rc == KC_EINVAL && err[0] != '\0', "refused without a reason");
        KC_FUZZ_CHECK(!spec.group_id && !spec.client_id, "a refused spec kept strings");
    } else {
        KC_FUZZ_CHECK(err[0] == '\0', "accepted with an error: %s", err);
        KC_FUZZ_CHECK(only_known_fields(text, n), "accepted with an unknown field");
        KC_FUZZ_CHECK(strcmp(kc_faults_kind_name(spec.kind), "?") != 0, "kind %d",
                      (int)spec.kind);
        KC_FUZZ_CHECK(spec.api_key == -1 || (spec.api_key >= 0 && spec.api_key < KC_METRICS_MAX_API),
                      "api key %d", spec.api_key);
        KC_FUZZ_CHECK(spec.remaining == -1 || spec.remaining >= 1, "count %lld",
                      (long long)spec.remaining);
        KC_FUZZ_CHECK(spec.until_ms == INT64_MAX ||
                          (spec.until_ms >= NOW_MS && spec.until_ms <= NOW_MS + 86400000LL),
                      "deadline %lld", (long long)spec.until_ms);
        switch (spec.kind) {
        case KC_FAULT_ERROR:
            KC_FUZZ_CHECK(spec.error_code != 0 && kc_api_find(spec.api_key), "error fault");
            KC_FUZZ_CHECK(spec.remaining >= 1 || spec.until_ms != INT64_MAX,
                          "an error fault without an end");
            break;
        case KC_FAULT_CLOSE:
            KC_FUZZ_CHECK(kc_api_find(spec.api_key), "close fault");
            break;
        case KC_FAULT_COORDINATOR:
            KC_FUZZ_CHECK(spec.error_code >= 14 && spec.error_code <= 16 &&
                              spec.until_ms != INT64_MAX &&
                              (spec.api_key < 0 || kc_faults_is_coordinator_api(spec.api_key)),
                          "coordinator fault");
            break;
        case KC_FAULT_STALL:
            KC_FUZZ_CHECK(spec.until_ms != INT64_MAX, "a stall without duration");
            break;
        case KC_FAULT_DELAY:
            KC_FUZZ_CHECK(spec.delay_ms > 0, "a delay of %lld ms", (long long)spec.delay_ms);
            break;
        }
        kc_faults_spec_deinit(&spec);
    }
    free(text);
}

static void fuzz_events_query(const uint8_t *d, size_t n)
{
    char *q = cstr(d, n);
    uint64_t since = 7;
    bool stream = false;
    const char *why = kc_admin_events_query(q, &since, &stream);
    if (why)
        KC_FUZZ_CHECK(why[0] != '\0', "an empty reason");
    uint64_t seq = 7;
    if (kc_admin_parse_seq(q, &seq)) {
        KC_FUZZ_CHECK(q[0] >= '0' && q[0] <= '9', "a sequence number from %s", q);
        char back[32];
        snprintf(back, sizeof(back), "%llu", (unsigned long long)seq);
        /* Leading zeros aside, the digits are the number. */
        const char *digits = q;
        while (digits[0] == '0' && digits[1])
            digits++;
        KC_FUZZ_CHECK(strcmp(back, digits) == 0, "%s read as %s", q, back);
    } else {
        KC_FUZZ_CHECK(seq == 7, "a refused sequence number was stored");
    }
    free(q);
}

static void fuzz_fault_id(const uint8_t *d, size_t n)
{
    char *t = cstr(d, n);
    int64_t id = kc_admin_fault_id(t);
    KC_FUZZ_CHECK(id == -1 || id > 0, "fault id %lld", (long long)id);
    if (id > 0)
        KC_FUZZ_CHECK(strspn(t, " \t\n\v\f\r+0123456789") == strlen(t), "id %lld from %s",
                      (long long)id, t);
    free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kc_fuzz_in_t in = {data, size};
    switch (kc_fuzz_u8(&in) & 3) {
    case 0:
    case 1:
        fuzz_spec(in.p, in.left);
        break;
    case 2:
        fuzz_events_query(in.p, in.left);
        break;
    default:
        fuzz_fault_id(in.p, in.left);
        break;
    }
    return 0;
}
