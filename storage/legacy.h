/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Message sets of the old formats (magic 0 and 1), converted to one magic 2
 * record batch as Kafka 3.9's LogValidator converts them for Produce v0-2.
 */
#ifndef KC_LEGACY_H
#define KC_LEGACY_H

#include <stddef.h>
#include <stdint.h>

#include "kc_common.h"

/*
 * Converts the message set in in[0..len) (entries of offset int64, size
 * int32, then a LegacyRecord: crc uint32, magic int8, attributes int8,
 * timestamp int64 (magic 1 only), key bytes, value bytes) into one magic 2
 * batch appended to out (caller-owned), ready for kc_log_append: BaseOffset 0
 * (the log assigns offsets; the producer's offsets are ignored, as Kafka
 * ignores them), no producer id, CreateTime, or the LogAppendTime attribute
 * when a magic 1 message carries it (the topic's timestamp type decides in the
 * log). Magic 0 messages have no timestamp: their records carry -1
 * (NO_TIMESTAMP), as Kafka converts them. A trailing fragment shorter than its
 * entry is ignored (Kafka's iterator stops there).
 *
 * A gzip wrapper message (attributes codec 1) must be the set's only entry;
 * its value, a gzip stream of an inner message set (inner offsets relative
 * for magic 1, absolute for magic 0; both ignored), is inflated to at most
 * max_bytes (message.max.bytes) bytes, its messages converted (a magic 1
 * wrapper with LogAppendTime gives them its timestamp), and the batch is
 * written gzip-compressed (codec 1), keeping the producer's codec as Kafka's
 * compression.type=producer does.
 *
 * Returns 0, or a Kafka error code with *why set to static text:
 * CORRUPT_MESSAGE (2: entry smaller than the record overhead, magic not 0/1,
 * CRC-32 (IEEE, zlib's crc32, not CRC-32C) mismatch, key or value lengths
 * not matching the size, a broken or truncated gzip stream),
 * MESSAGE_TOO_LARGE (10: the inflated inner set exceeds max_bytes),
 * INVALID_RECORD (87: no message at all; a gzip wrapper with a null value,
 * no inner message, compressed or other-magic inner messages, a magic 1
 * wrapper offset below the last inner offset, or sharing the set with other
 * entries), UNSUPPORTED_COMPRESSION_TYPE (76: snappy, lz4 or another codec).
 * out is unchanged on error.
 */
int16_t kc_legacy_convert(const uint8_t *in, size_t len, size_t max_bytes, kc_buf_t *out,
                          const char **why);

/* The magic byte of a produce partition's records (offset 16 in every
 * format), or -1 when the records are too short to have one. */
int kc_records_magic(const uint8_t *records, size_t len);

#endif
