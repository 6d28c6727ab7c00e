/* SPDX-License-Identifier: Apache-2.0 */
/* Committed offsets: OffsetCommit, OffsetFetch, OffsetDelete, retention and replay. */
