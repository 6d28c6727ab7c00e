/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for net/: exact framing over a socketpair, one request in
 * flight (pipelined bytes stay in the kernel until the response is written),
 * response order, and the closes for bad sizes, truncation and idleness.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "kc_common.h"
#include "kc_net.h"

typedef struct {
    struct event_base *base;
    kc_net_t *net;
    int client;      /* test side, blocking */
    int server_fd;   /* the adopted side, for FIONREAD */
    uint64_t conn_id;
    int nrequests;
    uint8_t last[256];
    size_t last_len;
    uint64_t last_conn;
    int ncloses;
} fx_t;

static void on_request(void *ctx, const kc_conn_info_t *conn, const uint8_t *data, size_t len)
{
    fx_t *fx = ctx;
    fx->nrequests++;
    fx->last_conn = conn->conn_id;
    fx->last_len = KC_MIN(len, sizeof(fx->last));
    memcpy(fx->last, data, fx->last_len);
}

static void on_close(void *ctx, uint64_t conn_id)
{
    fx_t *fx = ctx;
    (void)conn_id;
    fx->ncloses++;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
}

/* Runs the loop until *counter reaches want or 5 s pass; returns whether it did. */
static bool run_until(fx_t *fx, int *counter, int want)
{
    struct event *tick = event_new(fx->base, -1, EV_PERSIST, tick_cb, NULL);
    struct timeval tv = {0, 5000};
    event_add(tick, &tv);
    int64_t deadline = now_ms() + 5000;
    while (*counter < want && now_ms() < deadline)
        event_base_loop(fx->base, EVLOOP_ONCE);
    event_free(tick);
    return *counter >= want;
}

/* A few non-blocking passes: gives the connection every chance to read more. */
static void spin(fx_t *fx)
{
    for (int i = 0; i < 20; i++)
        event_base_loop(fx->base, EVLOOP_NONBLOCK);
}

static fx_t *fx_new(int32_t max_bytes, int64_t idle_ms)
{
    fx_t *fx = kc_xcalloc(1, sizeof(*fx));
    fx->base = event_base_new();
    kc_net_config_t cfg = {max_bytes, idle_ms};
    kc_net_handler_t h = {on_request, on_close, fx};
    fx->net = kc_net_new(fx->base, &cfg, &h);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    fx->client = sv[1];
    fx->server_fd = sv[0];
    assert_int_equal(kc_net_adopt(fx->net, sv[0], "/test", "PLAINTEXT", &fx->conn_id), 0);
    return fx;
}

static void fx_free(fx_t *fx)
{
    kc_net_free(fx->net);
    event_base_free(fx->base);
    close(fx->client);
    free(fx);
}

static size_t frame(uint8_t *out, int32_t size, const char *payload, size_t plen)
{
    out[0] = (uint8_t)((uint32_t)size >> 24);
    out[1] = (uint8_t)((uint32_t)size >> 16);
    out[2] = (uint8_t)((uint32_t)size >> 8);
    out[3] = (uint8_t)size;
    memcpy(out + 4, payload, plen);
    return 4 + plen;
}

static int pending_in_kernel(int fd)
{
    int n = -1;
    assert_int_equal(ioctl(fd, FIONREAD, &n), 0);
    return n;
}

static void read_exact(int fd, uint8_t *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        assert_true(r > 0);
        got += (size_t)r;
    }
}

static void test_pipelined_request_stays_unread_while_first_in_flight(void **state)
{
    (void)state;
    fx_t *fx = fx_new(1000, 60000);
    uint8_t buf[64];
    size_t n = frame(buf, 5, "AAAAA", 5);
    n += frame(buf + n, 6, "BBBBBB", 6);
    assert_int_equal(write(fx->client, buf, n), (ssize_t)n);

    assert_true(run_until(fx, &fx->nrequests, 1));
    assert_int_equal(fx->last_len, 5);
    assert_memory_equal(fx->last, "AAAAA", 5);
    spin(fx);
    /* Parked: exactly the first frame was consumed; the second is still in the kernel. */
    assert_int_equal(fx->nrequests, 1);
    assert_int_equal(kc_net_bytes_read(fx->net, fx->conn_id), 9);
    assert_int_equal(pending_in_kernel(fx->server_fd), 10);

    assert_int_equal(kc_net_send(fx->net, fx->conn_id, "ra", 2), 0);
    assert_true(run_until(fx, &fx->nrequests, 2));
    assert_memory_equal(fx->last, "BBBBBB", 6);
    assert_int_equal(kc_net_bytes_read(fx->net, fx->conn_id), 19);
    assert_int_equal(pending_in_kernel(fx->server_fd), 0);
    assert_int_equal(kc_net_send(fx->net, fx->conn_id, "rbb", 3), 0);

    /* Responses arrive in request order, each with its size prefix. */
    uint8_t resp[13];
    read_exact(fx->client, resp, sizeof(resp));
    assert_memory_equal(resp, "\0\0\0\2ra\0\0\0\3rbb", 13);
    /* No request in flight: a second send is refused. */
    assert_int_equal(kc_net_send(fx->net, fx->conn_id, "x", 1), KC_EINVAL);
    assert_int_equal(fx->ncloses, 0);
    fx_free(fx);
}

static void test_byte_by_byte_frame_is_assembled(void **state)
{
    (void)state;
    fx_t *fx = fx_new(1000, 60000);
    uint8_t buf[32];
    size_t n = frame(buf, 3, "xyz", 3);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(write(fx->client, buf + i, 1), 1);
        spin(fx);
        assert_int_equal(fx->nrequests, i + 1 == n ? 1 : 0);
    }
    assert_memory_equal(fx->last, "xyz", 3);
    /* A request without a response unmutes too. */
    assert_int_equal(kc_net_request_done(fx->net, fx->conn_id), 0);
    n = frame(buf, 1, "q", 1);
    assert_int_equal(write(fx->client, buf, n), (ssize_t)n);
    assert_true(run_until(fx, &fx->nrequests, 2));
    fx_free(fx);
}

static void expect_closed_after(fx_t *fx, const uint8_t *bytes, size_t n)
{
    assert_int_equal(write(fx->client, bytes, n), (ssize_t)n);
    assert_true(run_until(fx, &fx->ncloses, 1));
    assert_false(kc_net_conn_exists(fx->net, fx->conn_id));
    assert_int_equal(fx->nrequests, 0);
    uint8_t b;
    assert_int_equal(read(fx->client, &b, 1), 0); /* EOF on the client */
}

static void test_oversize_frame_closes(void **state)
{
    (void)state;
    fx_t *fx = fx_new(1000, 60000);
    uint8_t buf[8];
    frame(buf, 1001, "", 0);
    expect_closed_after(fx, buf, 4);
    /* The response to a request of a closed connection is dropped. */
    assert_int_equal(kc_net_send(fx->net, fx->conn_id, "x", 1), KC_ENOENT);
    fx_free(fx);
}

static void test_max_size_frame_is_accepted(void **state)
{
    (void)state;
    fx_t *fx = fx_new(8, 60000);
    uint8_t buf[16];
    size_t n = frame(buf, 8, "12345678", 8);
    assert_int_equal(write(fx->client, buf, n), (ssize_t)n);
    assert_true(run_until(fx, &fx->nrequests, 1));
    assert_int_equal(fx->ncloses, 0);
    fx_free(fx);
}

static void test_negative_size_closes(void **state)
{
    (void)state;
    fx_t *fx = fx_new(1000, 60000);
    uint8_t buf[4] = {0xff, 0xff, 0xff, 0xfe};
    expect_closed_after(fx, buf, 4);
    fx_free(fx);
}

static void test_truncated_body_closes(void **state)
{
    (void)state;
    fx_t *fx = fx_new(1000, 60000);
    uint8_t buf[16];
    size_t n = frame(buf, 10, "abc", 3);
    assert_int_equal(write(fx->client, buf, n), (ssize_t)n);
    shutdown(fx->client, SHUT_WR);
    assert_true(run_until(fx, &fx->ncloses, 1));
    assert_int_equal(fx->nrequests, 0);
    fx_free(fx);
}

static void test_idle_connection_closes(void **state)
{
    (void)state;
    fx_t *fx = fx_new(1000, 30);
    assert_true(run_until(fx, &fx->ncloses, 1));
    assert_int_equal(kc_net_conn_count(fx->net), 0);
    fx_free(fx);
}

/* A response the socket cannot take at once is finished by the write event;
 * only once all of it is handed to the kernel is the connection read again
 * (the pipelined request waits), as Kafka unmutes after a completed send. */
static void test_large_response_completes_before_next_request_is_read(void **state)
{
    (void)state;
    fx_t *fx = fx_new(1000, 60000);
    int small = 4096;
    setsockopt(fx->server_fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
    uint8_t buf[64];
    size_t n = frame(buf, 1, "A", 1);
    n += frame(buf + n, 1, "B", 1);
    assert_int_equal(write(fx->client, buf, n), (ssize_t)n);
    assert_true(run_until(fx, &fx->nrequests, 1));

    size_t body_len = 1 << 20;
    uint8_t *body = kc_xmalloc(body_len);
    for (size_t i = 0; i < body_len; i++)
        body[i] = (uint8_t)(i * 7);
    assert_int_equal(kc_net_send_parts(fx->net, fx->conn_id, "HD", 2, body, body_len), 0);
    /* The caller's memory is not needed after the call. */
    memset(body, 0, body_len);
    for (size_t i = 0; i < body_len; i++)
        body[i] = (uint8_t)(i * 7);

    size_t total = 4 + 2 + body_len, got = 0;
    uint8_t *resp = kc_xmalloc(total);
    int64_t deadline = now_ms() + 5000;
    while (got < total && now_ms() < deadline) {
        spin(fx);
        if (fx->nrequests > 1) /* unmuted: every byte has left kcoord */
            assert_int_equal(got + (size_t)pending_in_kernel(fx->client), total);
        ssize_t r = recv(fx->client, resp + got, total - got, MSG_DONTWAIT);
        if (r > 0)
            got += (size_t)r;
    }
    assert_int_equal(got, total);
    uint32_t size = ((uint32_t)resp[0] << 24) | ((uint32_t)resp[1] << 16) |
                    ((uint32_t)resp[2] << 8) | resp[3];
    assert_int_equal(size, 2 + body_len);
    assert_memory_equal(resp + 4, "HD", 2);
    assert_memory_equal(resp + 6, body, body_len);
    assert_true(run_until(fx, &fx->nrequests, 2));
    assert_memory_equal(fx->last, "B", 1);
    assert_int_equal(fx->ncloses, 0);
    free(resp);
    free(body);
    fx_free(fx);
}

/* Idleness counts from the last read or write, not from the connection's start. */
static void test_active_connection_outlives_idle_timeout(void **state)
{
    (void)state;
    fx_t *fx = fx_new(1000, 600);
    int64_t start = now_ms();
    uint8_t buf[16];
    int sent = 0;
    int64_t last_activity = start;
    while (now_ms() - start < 1500) {
        size_t n = frame(buf, 1, "p", 1);
        assert_int_equal(write(fx->client, buf, n), (ssize_t)n);
        sent++;
        assert_true(run_until(fx, &fx->nrequests, sent));
        assert_int_equal(kc_net_send(fx->net, fx->conn_id, "r", 1), 0);
        uint8_t resp[5];
        read_exact(fx->client, resp, sizeof(resp));
        last_activity = now_ms();
        assert_int_equal(fx->ncloses, 0);
        struct timespec ts = {0, 50 * 1000000};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(fx->ncloses, 0);
    assert_true(run_until(fx, &fx->ncloses, 1));
    assert_true(now_ms() - last_activity >= 590);
    fx_free(fx);
}

static void test_conn_ids_are_not_reused(void **state)
{
    (void)state;
    fx_t *fx = fx_new(1000, 60000);
    uint64_t first = fx->conn_id;
    kc_net_close(fx->net, first, "test");
    assert_int_equal(fx->ncloses, 1);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    uint64_t second;
    assert_int_equal(kc_net_adopt(fx->net, sv[0], "/t", "PLAINTEXT", &second), 0);
    assert_true(second != first);
    close(sv[1]);
    fx_free(fx);
}

static void test_listener_accepts_tcp(void **state)
{
    (void)state;
    fx_t *fx = fx_new(1000, 60000);
    kc_listener_t l = {"PLAINTEXT", "127.0.0.1", 0};
    uint16_t port = 0;
    assert_int_equal(kc_net_listen(fx->net, &l, &port), 0);
    assert_true(port != 0);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(0x7f000001);
    assert_int_equal(connect(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
    uint8_t buf[16];
    size_t n = frame(buf, 2, "hi", 2);
    assert_int_equal(write(s, buf, n), (ssize_t)n);
    assert_true(run_until(fx, &fx->nrequests, 1));
    assert_true(fx->last_conn != fx->conn_id);
    assert_int_equal(kc_net_send(fx->net, fx->last_conn, "ok", 2), 0);
    uint8_t resp[6];
    read_exact(s, resp, 6);
    assert_memory_equal(resp, "\0\0\0\2ok", 6);
    close(s);
    fx_free(fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipelined_request_stays_unread_while_first_in_flight),
        cmocka_unit_test(test_byte_by_byte_frame_is_assembled),
        cmocka_unit_test(test_oversize_frame_closes),
        cmocka_unit_test(test_max_size_frame_is_accepted),
        cmocka_unit_test(test_negative_size_closes),
        cmocka_unit_test(test_truncated_body_closes),
        cmocka_unit_test(test_idle_connection_closes),
        cmocka_unit_test(test_large_response_completes_before_next_request_is_read),
        cmocka_unit_test(test_active_connection_outlives_idle_timeout),
        cmocka_unit_test(test_conn_ids_are_not_reused),
        cmocka_unit_test(test_listener_accepts_tcp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
