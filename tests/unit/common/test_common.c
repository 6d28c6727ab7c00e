/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of common/: byte buffer and arena. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kc_common.h"

static void buf_append_grows_and_keeps_bytes(void **state)
{
    (void)state;
    kc_buf_t b;
    kc_buf_init(&b);
    for (int i = 0; i < 1000; i++) {
        uint8_t v = (uint8_t)i;
        kc_buf_append(&b, &v, 1);
    }
    assert_int_equal(b.len, 1000);
    assert_true(b.cap >= 1000);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(b.data[i], (uint8_t)i);
    kc_buf_reset(&b);
    assert_int_equal(b.len, 0);
    kc_buf_deinit(&b);
    assert_null(b.data);
}

static void arena_allocations_are_zeroed_aligned_and_distinct(void **state)
{
    (void)state;
    kc_arena_t a;
    kc_arena_init(&a);
    uint8_t *prev = NULL;
    for (int i = 1; i < 300; i++) {
        uint8_t *p = kc_arena_alloc(&a, (size_t)i * 7);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % _Alignof(max_align_t), 0);
        for (int j = 0; j < i * 7; j++)
            assert_int_equal(p[j], 0);
        memset(p, 0xab, (size_t)i * 7);
        assert_ptr_not_equal(p, prev);
        prev = p;
    }
    uint8_t *big = kc_arena_alloc(&a, 100000);
    memset(big, 1, 100000);
    assert_true(a.total >= 100000);
    kc_arena_deinit(&a);
    assert_null(a.head);
}

/* Reset between requests: later allocations are zeroed again, whatever the
 * previous request left in the memory, and a large chunk does not linger. */
static void arena_reset_gives_zeroed_memory_again(void **state)
{
    (void)state;
    kc_arena_t a;
    kc_arena_init(&a);
    for (int round = 0; round < 5; round++) {
        for (int i = 1; i < 50; i++) {
            uint8_t *p = kc_arena_alloc(&a, (size_t)i * 13);
            for (int j = 0; j < i * 13; j++)
                assert_int_equal(p[j], 0);
            memset(p, 0xcd, (size_t)i * 13);
        }
        uint8_t *big = kc_arena_alloc(&a, 200000);
        assert_int_equal(big[199999], 0);
        memset(big, 0xef, 200000);
        kc_arena_reset(&a);
        assert_int_equal(a.total, 0);
    }
    kc_arena_deinit(&a);
    assert_null(a.head);
}

static void strndup_terminates(void **state)
{
    (void)state;
    char *s = kc_xstrndup("abcdef", 3);
    assert_string_equal(s, "abc");
    free(s);
    s = kc_xstrndup(NULL, 0);
    assert_string_equal(s, "");
    free(s);
}

static void buf_read_file_appends_and_terminates(void **state)
{
    (void)state;
    char path[] = "/tmp/kc-test-read-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "a\0b\n", 4), 4);
    close(fd);
    kc_buf_t b;
    kc_buf_init(&b);
    kc_buf_append(&b, "x", 1);
    assert_int_equal(kc_buf_read_file(&b, path), 0);
    assert_int_equal(b.len, 5);
    assert_memory_equal(b.data, "xa\0b\n", 5);
    assert_int_equal(b.data[5], 0); /* terminated, not counted */
    unlink(path);
    assert_int_equal(kc_buf_read_file(&b, path), KC_EIO);
    assert_int_equal(b.len, 5);
    kc_buf_deinit(&b);
}

/* Values of Java's "...".hashCode(): ASCII, a two-byte character, a
 * character outside the BMP (two UTF-16 units) and a malformed byte (U+FFFD). */
static void java_string_hash_matches_java(void **state)
{
    (void)state;
    assert_int_equal(kc_java_string_hash("", 0), 0);
    assert_int_equal(kc_java_string_hash("hello", 5), 99162322);
    assert_int_equal(kc_java_string_hash("\xc3\xa9", 2), 0xE9);
    assert_int_equal(kc_java_string_hash("\xf0\x9f\x98\x80", 4), 31 * 0xD83D + 0xDE00);
    assert_int_equal(kc_java_string_hash("\xff", 1), 0xFFFD);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buf_append_grows_and_keeps_bytes),
        cmocka_unit_test(arena_allocations_are_zeroed_aligned_and_distinct),
        cmocka_unit_test(arena_reset_gives_zeroed_memory_again),
        cmocka_unit_test(strndup_terminates),
        cmocka_unit_test(buf_read_file_appends_and_terminates),
        cmocka_unit_test(java_string_hash_matches_java),
    };
    return cmocka_run_group_tests_name("common", tests, NULL, NULL);
}
