/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A main() for a fuzz target built without libFuzzer: runs every file named
 * on the command line, or every regular file of every directory named, through
 * LLVMFuzzerTestOneInput, so the seed and regression corpus is replayed under
 * the ordinary sanitizer build on every test run. Exits 0 when every input
 * ran (a broken invariant aborts), 1 on an unreadable path or an empty run.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kc_fuzz.h"

/* Reads the whole file into a heap buffer of exactly its size (so ASan sees
 * overreads); 0 or -1. *data is NULL for an empty file. */
static int read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = -1;
    if (fseek(f, 0, SEEK_END) != 0)
        goto out;
    long n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0)
        goto out;
    len = (size_t)n;
    if (len) {
        buf = malloc(len);
        if (!buf || fread(buf, 1, len, f) != len) {
            free(buf);
            buf = NULL;
            goto out;
        }
    }
    rc = 0;
out:
    fclose(f);
    *data = buf;
    *size = rc == 0 ? len : 0;
    return rc;
}

static int run_file(const char *path, size_t *count)
{
    uint8_t *data;
    size_t size;
    if (read_file(path, &data, &size) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        return -1;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    (*count)++;
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs the regular files of dir in name order, so a run is reproducible. */
static int run_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "cannot open %s\n", dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof(*names));
            if (!grown)
                abort();
            names = grown;
        }
        size_t len = strlen(dir) + 1 + strlen(e->d_name) + 1;
        names[n] = malloc(len);
        if (!names[n])
            abort();
        snprintf(names[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof(*names), cmp_names);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode) && run_file(names[i], count) != 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "cannot stat %s\n", argv[i]);
            rc = 1;
        } else if (S_ISDIR(st.st_mode) ? run_dir(argv[i], &count) != 0
                                       : run_file(argv[i], &count) != 0) {
            rc = 1;
        }
    }
    printf("%zu inputs replayed\n", count);
    return rc != 0 || count == 0 ? 1 : 0;
}
