/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The console's static files, compiled into the binary from console/ by
 * console/embed.py and served by the admin endpoint (admin.c).
 */
#ifndef KC_CONSOLE_ASSETS_H
#define KC_CONSOLE_ASSETS_H

#include <stddef.h>

/* One file: its URL path ("/index.html"), Content-Type, strong ETag (with
 * its quotes) and bytes; all static. */
typedef struct {
    const char *path;
    const char *content_type;
    const char *etag;
    const unsigned char *data;
    size_t len;
} kc_console_asset_t;

extern const kc_console_asset_t kc_console_assets[];
extern const size_t kc_console_nassets;

#endif
