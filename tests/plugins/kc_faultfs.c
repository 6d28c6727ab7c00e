/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kc_faultfs: an LD_PRELOAD shim that makes one chosen storage call of the
 * LMDB data file (data.mdb) fail, for the storage fault tests.
 *
 * KC_FAULTFS_ARM names an arm file. Until that file exists the shim passes
 * every call through, so kcoord starts cleanly. The test then writes the
 * file with one line "POINT MODE N":
 *
 *   POINT  data  the data pages of a commit (writev, pwritev, write, or a
 *                pwrite of a page or more);
 *          meta  the meta page (a pwrite of less than a page into the first
 *                two pages, LMDB's commit point);
 *          sync  the flush (fdatasync, fsync, msync);
 *   MODE   eio     the call fails with EIO;
 *          enospc  the call fails with ENOSPC;
 *          short   a write writes half of what it was given and says so
 *                  (a sync fails with EIO);
 *   N      the Nth such call after arming fails (1 = the next one).
 *
 * The fault fires once; the shim then renames the arm file to
 * "ARM.fired" so the test can wait for it, and passes everything through
 * until a new arm file is written. Each fired fault is also reported on
 * stderr.
 */
/* The shim defines both pwrite and pwrite64: no redirection of one to the other. */
#undef _FILE_OFFSET_BITS
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { P_NONE, P_DATA, P_META, P_SYNC };
enum { M_EIO, M_ENOSPC, M_SHORT };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int armed_point = P_NONE, armed_mode, left;
static int done; /* a bad arm file: disarmed for good */

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static int (*real_fdatasync)(int);
static int (*real_fsync)(int);
static int (*real_msync)(void *, size_t, int);

#define RESOLVE(name) \
    do { \
        if (!real_##name) \
            *(void **)&real_##name = dlsym(RTLD_NEXT, #name); \
    } while (0)

/* True if fd is the LMDB data file. */
static int is_data_file(int fd)
{
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    if (n < 9)
        return 0;
    path[n] = '\0';
    return strcmp(path + n - 9, "/data.mdb") == 0;
}

/* Reads the arm file once it appears; true while a fault is pending. */
static int check_armed(void)
{
    if (done)
        return 0;
    if (armed_point != P_NONE)
        return 1;
    const char *arm = getenv("KC_FAULTFS_ARM");
    if (!arm)
        return 0;
    FILE *f = fopen(arm, "r");
    if (!f)
        return 0;
    char point[16] = "", mode[16] = "";
    int n = 0;
    int got = fscanf(f, "%15s %15s %d", point, mode, &n);
    fclose(f);
    if (got != 3 || n < 1)
        return 0; /* not fully written yet: look again at the next call */
    armed_point = !strcmp(point, "data") ? P_DATA : !strcmp(point, "meta") ? P_META
                  : !strcmp(point, "sync") ? P_SYNC : P_NONE;
    armed_mode = !strcmp(mode, "enospc") ? M_ENOSPC : !strcmp(mode, "short") ? M_SHORT : M_EIO;
    left = n;
    if (armed_point == P_NONE) {
        done = 1;
        return 0;
    }
    return 1;
}

/* Counts a call at `point`; true if this one must fail. */
static int should_fail(int point)
{
    pthread_mutex_lock(&lock);
    int fail = 0;
    if (check_armed() && armed_point == point && --left == 0) {
        fail = 1;
        armed_point = P_NONE; /* a new arm file arms the shim again */
        const char *arm = getenv("KC_FAULTFS_ARM");
        char fired[PATH_MAX];
        snprintf(fired, sizeof(fired), "%s.fired", arm);
        rename(arm, fired);
        static const char *names[] = {"", "data", "meta", "sync"};
        static const char *modes[] = {"eio", "enospc", "short"};
        fprintf(stderr, "kc_faultfs: failing a %s call (%s)\n", names[point], modes[armed_mode]);
    }
    pthread_mutex_unlock(&lock);
    return fail;
}

static int fail_errno(void)
{
    return armed_mode == M_ENOSPC ? ENOSPC : EIO;
}

static int write_point(int fd, size_t len, off_t off)
{
    if (!is_data_file(fd))
        return P_NONE;
    /* LMDB writes a meta page as its header only, into page 0 or 1. */
    if (off >= 0 && len < 4096 && off < 2 * 65536)
        return P_META;
    return P_DATA;
}

ssize_t write(int fd, const void *buf, size_t len)
{
    RESOLVE(write);
    if (write_point(fd, len, -1) == P_DATA && should_fail(P_DATA)) {
        if (armed_mode == M_SHORT)
            return real_write(fd, buf, len / 2);
        errno = fail_errno();
        return -1;
    }
    return real_write(fd, buf, len);
}

static ssize_t do_pwrite(ssize_t (*fn)(int, const void *, size_t, off_t), int fd,
                         const void *buf, size_t len, off_t off)
{
    int point = write_point(fd, len, off);
    if (point != P_NONE && should_fail(point)) {
        if (armed_mode == M_SHORT)
            return fn(fd, buf, len / 2, off);
        errno = fail_errno();
        return -1;
    }
    return fn(fd, buf, len, off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
    RESOLVE(pwrite);
    return do_pwrite(real_pwrite, fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
    RESOLVE(pwrite64);
    return do_pwrite(real_pwrite64, fd, buf, len, off);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
    RESOLVE(writev);
    RESOLVE(write);
    if (is_data_file(fd) && should_fail(P_DATA)) {
        if (armed_mode == M_SHORT && n > 0)
            return real_write(fd, iov[0].iov_base, iov[0].iov_len / 2);
        errno = fail_errno();
        return -1;
    }
    return real_writev(fd, iov, n);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
    RESOLVE(pwritev);
    RESOLVE(pwrite);
    if (is_data_file(fd) && should_fail(P_DATA)) {
        if (armed_mode == M_SHORT && n > 0)
            return real_pwrite(fd, iov[0].iov_base, iov[0].iov_len / 2, off);
        errno = fail_errno();
        return -1;
    }
    return real_pwritev(fd, iov, n, off);
}

int fdatasync(int fd)
{
    RESOLVE(fdatasync);
    if (is_data_file(fd) && should_fail(P_SYNC)) {
        errno = EIO;
        return -1;
    }
    return real_fdatasync(fd);
}

int fsync(int fd)
{
    RESOLVE(fsync);
    if (is_data_file(fd) && should_fail(P_SYNC)) {
        errno = EIO;
        return -1;
    }
    return real_fsync(fd);
}

int msync(void *addr, size_t len, int flags)
{
    RESOLVE(msync);
    if (should_fail(P_SYNC)) {
        errno = EIO;
        return -1;
    }
    return real_msync(addr, len, flags);
}
