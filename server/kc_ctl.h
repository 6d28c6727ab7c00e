/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `kcoord ctl`, the admin endpoint's command-line client.
 */
#ifndef KC_CTL_H
#define KC_CTL_H

#include <stdbool.h>

/* argv: the arguments after "ctl" (argc of them). Prints the response body on
 * stdout, diagnostics on stderr. Returns the exit status: 0 on HTTP 2xx (or,
 * for health, on any answer), 1 on an HTTP error or bad usage, 2 when the
 * endpoint cannot be reached. */
int kc_ctl_main(int argc, char **argv);

#endif
