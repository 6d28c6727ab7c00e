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
 * A compressed wrapper message (attributes codec 1 gzip, 2 snappy, 3 lz4)
 * must be the set's only entry. Its value, the compressed inner message set
 * (inner offsets relative for magic 1, absolute for magic 0; both ignored),
 * is decompressed as Kafka 3.9 reads it: gzip; snappy in xerial
 * snappy-java's framing or as one raw block; lz4 as Kafka's LZ4 frame, with
 * the frame header checksum ignored for magic 0 (KAFKA-3160). Its messages
 * are converted (a magic 1 wrapper with LogAppendTime gives them its
 * timestamp), and the batch is written with the wrapper's codec, as Kafka's
 * compression.type=producer recompresses (snappy in the xerial framing, lz4
 * as a frame with a correct header checksum). Kafka bounds only the
 * resulting batch (message.max.bytes, which kc_log_append checks); the
 * decompressed inner set is bounded here by inflate_max, a guard against
 * decompression bombs that Kafka does not have.
 *
 * Returns 0, or a Kafka error code with *why set to static text:
 * CORRUPT_MESSAGE (2: entry smaller than the record overhead, magic not 0/1,
 * CRC-32 (IEEE, zlib's crc32, not CRC-32C) mismatch, key or value lengths
 * not matching the size, a broken or truncated compressed stream),
 * MESSAGE_TOO_LARGE (10: the decompressed inner set exceeds inflate_max),
 * INVALID_RECORD (87: no message at all; a compressed wrapper with a null
 * value, no inner message, compressed or other-magic inner messages, a
 * magic 1 wrapper offset below the last inner offset, or sharing the set
 * with other entries; zstd, which needs magic 2), UNKNOWN_SERVER_ERROR (-1:
 * an unknown codec id, where Kafka's CompressionType.forId throws).
 * out is unchanged on error.
 */
int16_t kc_legacy_convert(const uint8_t *in, size_t len, size_t inflate_max, kc_buf_t *out,
                          const char **why);

/* Decompresses the records of a magic 2 batch of codec 1 (gzip), 2
 * (snappy, xerial framing) or 3 (lz4 frame), at most max bytes, appended to
 * out. 0, or -1 (another codec, a broken stream, too large). */
int kc_records_decompress(int codec, const uint8_t *in, size_t len, size_t max, kc_buf_t *out);

/* Compresses the records of a magic 2 batch with codec 1, 2 or 3 as
 * kc_legacy_convert writes them, appended to out. 0, or -1 (another codec). */
int kc_records_compress(int codec, const uint8_t *in, size_t len, kc_buf_t *out);

/* The magic byte of a produce partition's records (offset 16 in every
 * format), or -1 when the records are too short to have one. */
int kc_records_magic(const uint8_t *records, size_t len);

#endif
