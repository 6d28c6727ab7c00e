/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target for the configuration sources (conf/config.c). Input: one
 * byte whose low two bits select the source, then its text:
 *   0  a configuration file (java.util.Properties syntax,
 *      kc_config_parse_properties), then kc_config_validate
 *   1  environment entries, one a line ("KCOORD_GROUP_MAX_SIZE=3"),
 *      kc_config_load_env
 *   2  --override strings, one a line ("group.max.size=3"),
 *      kc_config_override each, stopping at the first refused one
 *   3  two lines: a listeners spec (kc_listeners_parse) and a
 *      max.connections.per.ip.overrides list, looked up for the address
 *      on the third line (kc_config_ip_override)
 * After 0 to 2, whatever got set reads back: every property's text form
 * (kc_config_value_string) sets the property again, to the same text, and a
 * source that is refused says why.
 */
#include <string.h>

#include "kc_common.h"
#include "kc_config.h"
#include "kc_fuzz.h"

/* The lines of d as NUL-terminated strings in one heap block; a NULL after
 * the last (envp's form). Free *block and the array. */
static char **split_lines(const uint8_t *d, size_t n, char **block)
{
    char *b = kc_xmalloc(n + 1);
    if (n)
        memcpy(b, d, n);
    b[n] = '\0';
    size_t count = 1;
    for (size_t i = 0; i < n; i++)
        count += b[i] == '\n';
    char **v = kc_xcalloc(count + 1, sizeof(*v));
    size_t k = 0;
    char *p = b;
    for (;;) {
        char *nl = strchr(p, '\n');
        v[k++] = p;
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    v[k] = NULL;
    *block = b;
    return v;
}

/* Every property's text form sets it again, unchanged. */
static void values_roundtrip(kc_config_t *c)
{
    static char before[16384], after[16384];
    for (size_t i = 0; i < kc_config_property_count(); i++) {
        const kc_conf_property_t *p = kc_config_property_at(i);
        KC_FUZZ_CHECK(kc_config_value_string(c, p->name, before, sizeof(before), NULL),
                      "property %s has no value", p->name);
        if (strlen(before) + 1 >= sizeof(before))
            continue; /* cut short: nothing to compare */
        char err[1024];
        KC_FUZZ_CHECK(kc_config_set(c, p->name, before, err, sizeof(err)) == 0,
                      "%s=%s does not set again: %s", p->name, before, err);
        KC_FUZZ_CHECK(kc_config_value_string(c, p->name, after, sizeof(after), NULL) &&
                          strcmp(before, after) == 0,
                      "%s=%s reads back as %s", p->name, before, after);
    }
}

static void fuzz_file(const uint8_t *d, size_t n)
{
    /* Exactly n bytes on the heap: the parser gets a length, not a string. */
    char *text = kc_xmalloc(n ? n : 1);
    if (n)
        memcpy(text, d, n);
    kc_config_t c;
    kc_config_init(&c);
    char err[1024] = "";
    if (kc_config_parse_properties(&c, text, n, "fuzz.conf", err, sizeof(err)) == 0) {
        err[0] = '\0';
        if (kc_config_validate(&c, err, sizeof(err)) != 0)
            KC_FUZZ_CHECK(err[0] != '\0', "validation failed without a reason");
        values_roundtrip(&c);
    } else {
        KC_FUZZ_CHECK(err[0] != '\0', "the file was refused without a reason");
    }
    kc_config_deinit(&c);
    free(text);
}

static void fuzz_env(const uint8_t *d, size_t n)
{
    char *block;
    char **envp = split_lines(d, n, &block);
    kc_config_t c;
    kc_config_init(&c);
    char err[1024] = "";
    if (kc_config_load_env(&c, envp, err, sizeof(err)) == 0)
        values_roundtrip(&c);
    else
        KC_FUZZ_CHECK(err[0] != '\0', "the environment was refused without a reason");
    kc_config_deinit(&c);
    free(envp);
    free(block);
}

static void fuzz_overrides(const uint8_t *d, size_t n)
{
    char *block;
    char **kv = split_lines(d, n, &block);
    kc_config_t c;
    kc_config_init(&c);
    bool ok = true;
    for (size_t i = 0; kv[i] && ok; i++) {
        char err[1024] = "";
        ok = kc_config_override(&c, kv[i], err, sizeof(err)) == 0;
        if (!ok)
            KC_FUZZ_CHECK(err[0] != '\0', "override %s refused without a reason", kv[i]);
    }
    if (ok)
        values_roundtrip(&c);
    kc_config_deinit(&c);
    free(kv);
    free(block);
}

static void fuzz_lists(const uint8_t *d, size_t n)
{
    char *block;
    char **lines = split_lines(d, n, &block);
    kc_listener_t ls[KC_MAX_LISTENERS];
    char err[1024] = "";
    int k = kc_listeners_parse(lines[0], ls, KC_MAX_LISTENERS, err, sizeof(err));
    if (k < 0) {
        KC_FUZZ_CHECK(k == -1 && err[0] != '\0', "listeners refused without a reason");
    } else {
        KC_FUZZ_CHECK(k >= 1 && k <= KC_MAX_LISTENERS, "%d listeners", k);
        for (int i = 0; i < k; i++) {
            KC_FUZZ_CHECK(ls[i].name[0] != '\0' && memchr(ls[i].name, 0, sizeof(ls[i].name)) &&
                              memchr(ls[i].host, 0, sizeof(ls[i].host)),
                          "listener %d", i);
            for (int j = 0; j < i; j++)
                KC_FUZZ_CHECK(strcmp(ls[i].name, ls[j].name) != 0, "listener %s twice",
                              ls[i].name);
        }
    }
    if (lines[1]) {
        const char *ip = lines[2] ? lines[2] : "127.0.0.1";
        int32_t v = kc_config_ip_override(lines[1], ip);
        KC_FUZZ_CHECK(v >= -2, "ip override %d", v);
    }
    free(lines);
    free(block);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kc_fuzz_in_t in = {data, size};
    switch (kc_fuzz_u8(&in) & 3) {
    case 0:
        fuzz_file(in.p, in.left);
        break;
    case 1:
        fuzz_env(in.p, in.left);
        break;
    case 2:
        fuzz_overrides(in.p, in.left);
        break;
    default:
        fuzz_lists(in.p, in.left);
        break;
    }
    return 0;
}
