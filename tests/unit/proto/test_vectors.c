/* SPDX-License-Identifier: Apache-2.0 */
/* placeholder */
int main(void);
int main(void) { return 0; }
