/* SPDX-License-Identifier: Apache-2.0 */
/* Conversion of magic 0/1 message sets (Produce v0-2) into a magic 2 batch. */
#include "legacy.h"

#include <string.h>

#include <lz4.h>
#include <snappy-c.h>
#include <xxhash.h>
#include <zlib.h>

#include "crc32c.h"
#include "wire.h"

#define LEGACY_LOG_OVERHEAD 12 /* offset int64 + size int32 */
#define LEGACY_ATTR_COMPRESSION 0x07
#define LEGACY_ATTR_LOG_APPEND_TIME 0x08
#define BATCH_ATTR_LOG_APPEND_TIME 0x08
#define LEGACY_CODEC_GZIP 1
#define LEGACY_CODEC_SNAPPY 2
#define LEGACY_CODEC_LZ4 3

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

int kc_records_magic(const uint8_t *records, size_t len)
{
    if (!records || len < 17)
        return -1;
    return (int8_t)records[16];
}

typedef struct {
    int64_t ts;
    const uint8_t *key, *value;
    int32_t klen, vlen; /* -1: null */
    int8_t magic;
    uint8_t attrs;
} legacy_msg_t;

/* Parses one LegacyRecord of rlen bytes at r. Returns 0 or an error code. */
static int16_t parse_record(const uint8_t *r, size_t rlen, legacy_msg_t *m, const char **why)
{
    if (rlen < 14) {
        *why = "Record size is less than the minimum record overhead (14)";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    int8_t magic = (int8_t)r[4];
    if (magic != 0 && magic != 1) {
        *why = "Invalid magic found in record";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    size_t hdr = magic == 1 ? 14 : 6; /* crc, magic, attributes, [timestamp] */
    if (rlen < hdr + 8) {
        *why = "Record size is less than the minimum record overhead";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    uint32_t crc = (uint32_t)crc32(0L, r + 4, (uInt)(rlen - 4));
    if (crc != get32(r)) {
        *why = "Record is corrupt (stored crc does not match computed crc)";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    m->magic = magic;
    m->attrs = r[5];
    m->ts = magic == 1 ? (int64_t)get64(r + 6) : -1;
    size_t pos = hdr;
    for (int i = 0; i < 2; i++) {
        if (rlen - pos < 4) {
            *why = "Record is truncated";
            return KC_ERR_CORRUPT_MESSAGE;
        }
        int32_t n = (int32_t)get32(r + pos);
        pos += 4;
        if (n < -1 || (n > 0 && (size_t)n > rlen - pos)) {
            *why = "Record key or value size is invalid";
            return KC_ERR_CORRUPT_MESSAGE;
        }
        const uint8_t *p = n >= 0 ? r + pos : NULL;
        if (n > 0)
            pos += (size_t)n;
        if (i == 0) {
            m->key = p;
            m->klen = n;
        } else {
            m->value = p;
            m->vlen = n;
        }
    }
    if (pos != rlen) {
        *why = "Record has bytes after its value";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    return 0;
}

/* The magic 2 records being built. */
typedef struct {
    kc_buf_t recs;
    int32_t count;
    int64_t base_ts, max_ts;
    bool log_append;
} conv_t;

static void add_record(conv_t *c, const legacy_msg_t *m)
{
    if (c->count == 0)
        c->base_ts = m->ts;
    if (m->ts > c->max_ts)
        c->max_ts = m->ts;
    kc_buf_t one;
    kc_buf_init(&one);
    uint8_t zero = 0;
    kc_buf_append(&one, &zero, 1); /* record attributes */
    kc_write_varlong(&one, m->ts - c->base_ts);
    kc_write_varint(&one, c->count);
    kc_write_varint(&one, m->klen);
    if (m->klen > 0)
        kc_buf_append(&one, m->key, (size_t)m->klen);
    kc_write_varint(&one, m->vlen);
    if (m->vlen > 0)
        kc_buf_append(&one, m->value, (size_t)m->vlen);
    kc_write_varint(&one, 0); /* no headers */
    kc_write_varint(&c->recs, (int32_t)one.len);
    kc_buf_append(&c->recs, one.data, one.len);
    kc_buf_deinit(&one);
    c->count++;
}

static const char TOO_LARGE[] =
    "Decompressed message set exceeds the broker's bound (legacy.decompression.max.bytes)";

/* Inflates the gzip stream in[0..len) into out, at most max bytes. */
static int16_t gunzip(const uint8_t *in, size_t len, size_t max, kc_buf_t *out, const char **why)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
        *why = "Failed to initialise gzip decompression";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)len;
    int16_t err = 0;
    for (;;) {
        /* one byte beyond the limit tells an oversized stream apart */
        size_t room = max + 1 - out->len;
        if (room > 65536)
            room = 65536;
        zs.next_out = kc_buf_reserve(out, room);
        zs.avail_out = (uInt)room;
        int rc = inflate(&zs, Z_NO_FLUSH);
        out->len += room - zs.avail_out;
        if (out->len > max) {
            *why = TOO_LARGE;
            err = KC_ERR_MESSAGE_TOO_LARGE;
            break;
        }
        if (rc == Z_STREAM_END)
            break;
        if (rc == Z_OK && zs.avail_out == 0)
            continue;
        if (rc == Z_OK || rc == Z_BUF_ERROR)
            *why = "Compressed message set is truncated (gzip stream ends early)";
        else
            *why = "Compressed message set is not a valid gzip stream";
        err = KC_ERR_CORRUPT_MESSAGE;
        break;
    }
    inflateEnd(&zs);
    return err;
}

/* Appends the raw snappy block in[0..len) to out, keeping out->len <= max. */
static int16_t snappy_block(const uint8_t *in, size_t len, size_t max, kc_buf_t *out,
                            const char **why)
{
    size_t n;
    if (snappy_uncompressed_length((const char *)in, len, &n) != SNAPPY_OK) {
        *why = "Compressed message set is not valid snappy data";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    if (n > max - out->len) {
        *why = TOO_LARGE;
        return KC_ERR_MESSAGE_TOO_LARGE;
    }
    char *dst = (char *)kc_buf_reserve(out, n ? n : 1);
    if (snappy_uncompress((const char *)in, len, dst, &n) != SNAPPY_OK) {
        *why = "Compressed message set is not valid snappy data";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    out->len += n;
    return 0;
}

/* The stream header of xerial snappy-java's SnappyOutputStream (what Kafka
 * writes for snappy): magic, then version and minimum compatible version. */
static const uint8_t XERIAL_MAGIC[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
#define XERIAL_HEADER 16
#define XERIAL_BLOCK 32768 /* SnappyOutputStream's default block size */

/*
 * Decompresses a snappy payload as Kafka's SnappyInputStream reads it: the
 * xerial framing (header, then blocks of a big-endian int32 length and a raw
 * snappy block; a repeated header starts a concatenated stream; fewer than
 * four trailing bytes end the stream), or, without the header, one raw
 * snappy block.
 */
static int16_t unsnappy(const uint8_t *in, size_t len, size_t max, kc_buf_t *out,
                        const char **why)
{
    if (len == 0) {
        *why = "Cannot decompress empty snappy stream";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    if (len < XERIAL_HEADER || memcmp(in, XERIAL_MAGIC, 8) != 0)
        return snappy_block(in, len, max, out, why);
    size_t pos = 0;
    while (len - pos >= 4) {
        if (len - pos >= XERIAL_HEADER && memcmp(in + pos, XERIAL_MAGIC, 8) == 0) {
            if ((int32_t)get32(in + pos + 8) < 1) {
                *why = "Incompatible snappy stream version";
                return KC_ERR_CORRUPT_MESSAGE;
            }
            pos += XERIAL_HEADER;
            continue;
        }
        int32_t n = (int32_t)get32(in + pos);
        pos += 4;
        if (n < 0 || (size_t)n > len - pos) {
            *why = "Compressed message set is truncated (snappy block ends early)";
            return KC_ERR_CORRUPT_MESSAGE;
        }
        int16_t err = snappy_block(in + pos, (size_t)n, max, out, why);
        if (err)
            return err;
        pos += (size_t)n;
    }
    return 0;
}

/* Compresses in into out with the xerial framing, as Kafka writes snappy. */
static void snappy_into(const kc_buf_t *in, kc_buf_t *out)
{
    kc_buf_append(out, XERIAL_MAGIC, sizeof(XERIAL_MAGIC));
    kc_write_int32(out, 1); /* version */
    kc_write_int32(out, 1); /* minimum compatible version */
    for (size_t pos = 0; pos < in->len; pos += XERIAL_BLOCK) {
        size_t n = KC_MIN((size_t)XERIAL_BLOCK, in->len - pos);
        size_t room = snappy_max_compressed_length(n);
        size_t at = out->len;
        kc_write_int32(out, 0); /* length, below */
        char *dst = (char *)kc_buf_reserve(out, room);
        snappy_compress((const char *)in->data + pos, n, dst, &room);
        out->len += room;
        put32(out->data + at, (uint32_t)room);
    }
}

#define LZ4_FRAME_MAGIC 0x184D2204u
#define LZ4_INCOMPRESSIBLE 0x80000000u

static uint32_t get32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32le(kc_buf_t *b, uint32_t v)
{
    uint8_t p[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    kc_buf_append(b, p, 4);
}

/*
 * Decompresses an LZ4 frame as Kafka's Lz4BlockInputStream reads it: version
 * 1, independent blocks, block maximum 64 KiB to 4 MiB, optional content
 * size (skipped), block checksums (checked) and content checksum (not
 * checked). The header checksum is checked except for magic 0, whose
 * producers computed it over the magic number too (KAFKA-3160): Kafka
 * ignores it there.
 */
static int16_t unlz4(const uint8_t *in, size_t len, int8_t magic, size_t max, kc_buf_t *out,
                     const char **why)
{
    *why = "Compressed message set is not a valid LZ4 frame";
    if (len < 6) {
        *why = "Compressed message set is truncated (LZ4 frame ends early)";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    if (get32le(in) != LZ4_FRAME_MAGIC)
        return KC_ERR_CORRUPT_MESSAGE;
    uint8_t flg = in[4], bd = in[5];
    if ((flg & 0x03) || !(flg & 0x20) || (flg >> 6) != 1 || (bd & 0x8F) || ((bd >> 4) & 7) < 4) {
        *why = "Unsupported LZ4 frame descriptor (Kafka needs version 1, independent blocks)";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    bool content_size = flg & 0x08, block_checksum = flg & 0x10, content_checksum = flg & 0x04;
    size_t block_max = (size_t)1 << (2 * ((bd >> 4) & 7) + 8);
    size_t pos = 6;
    if (content_size) {
        if (len - pos < 8) {
            *why = "Compressed message set is truncated (LZ4 frame ends early)";
            return KC_ERR_CORRUPT_MESSAGE;
        }
        pos += 8;
    }
    if (len - pos < 1) {
        *why = "Compressed message set is truncated (LZ4 frame ends early)";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    if (magic != 0 && in[pos] != (uint8_t)(XXH32(in + 4, pos - 4, 0) >> 8)) {
        *why = "LZ4 frame descriptor checksum mismatch";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    pos++;
    for (;;) {
        if (len - pos < 4) {
            *why = "Compressed message set is truncated (LZ4 frame ends early)";
            return KC_ERR_CORRUPT_MESSAGE;
        }
        uint32_t word = get32le(in + pos);
        pos += 4;
        size_t n = word & ~LZ4_INCOMPRESSIBLE;
        if (n == 0) {
            (void)content_checksum; /* Kafka reads past it unchecked; so do we */
            return 0;
        }
        if (n > block_max)
            return KC_ERR_CORRUPT_MESSAGE;
        if (len - pos < n + (block_checksum ? 4 : 0)) {
            *why = "Compressed message set is truncated (LZ4 frame ends early)";
            return KC_ERR_CORRUPT_MESSAGE;
        }
        if (block_checksum && XXH32(in + pos, n, 0) != get32le(in + pos + n)) {
            *why = "LZ4 block checksum mismatch";
            return KC_ERR_CORRUPT_MESSAGE;
        }
        size_t room = KC_MIN(block_max, max - out->len);
        uint8_t *dst = kc_buf_reserve(out, block_max);
        if (word & LZ4_INCOMPRESSIBLE) {
            if (n > room) {
                *why = TOO_LARGE;
                return KC_ERR_MESSAGE_TOO_LARGE;
            }
            memcpy(dst, in + pos, n);
            out->len += n;
        } else {
            int got = LZ4_decompress_safe((const char *)in + pos, (char *)dst, (int)n,
                                          (int)block_max);
            if (got < 0)
                return KC_ERR_CORRUPT_MESSAGE;
            if ((size_t)got > room) {
                *why = TOO_LARGE;
                return KC_ERR_MESSAGE_TOO_LARGE;
            }
            out->len += (size_t)got;
        }
        pos += n + (block_checksum ? 4 : 0);
    }
}

/* Compresses in into out as Kafka's Lz4BlockOutputStream does for magic 2:
 * version 1, independent 64 KiB blocks, no checksums but the header's. */
static void lz4_into(const kc_buf_t *in, kc_buf_t *out)
{
    const size_t block = 65536;
    put32le(out, LZ4_FRAME_MAGIC);
    uint8_t desc[3] = {0x60, 0x40, 0};
    desc[2] = (uint8_t)(XXH32(desc, 2, 0) >> 8);
    kc_buf_append(out, desc, 3);
    for (size_t pos = 0; pos < in->len; pos += block) {
        size_t n = KC_MIN(block, in->len - pos);
        size_t at = out->len;
        put32le(out, 0); /* size, below */
        int room = LZ4_compressBound((int)n);
        char *dst = (char *)kc_buf_reserve(out, (size_t)room);
        int got = LZ4_compress_default((const char *)in->data + pos, dst, (int)n, room);
        uint32_t word;
        if (got <= 0 || (size_t)got >= n) {
            memcpy(dst, in->data + pos, n);
            out->len += n;
            word = (uint32_t)n | LZ4_INCOMPRESSIBLE;
        } else {
            out->len += (size_t)got;
            word = (uint32_t)got;
        }
        out->data[at] = (uint8_t)word;
        out->data[at + 1] = (uint8_t)(word >> 8);
        out->data[at + 2] = (uint8_t)(word >> 16);
        out->data[at + 3] = (uint8_t)(word >> 24);
    }
    put32le(out, 0); /* end mark */
}

/* Decompresses the value of a wrapper message of codec and magic. */
static int16_t decompress(int codec, int8_t magic, const uint8_t *in, size_t len, size_t max,
                          kc_buf_t *out, const char **why)
{
    switch (codec) {
    case LEGACY_CODEC_GZIP: return gunzip(in, len, max, out, why);
    case LEGACY_CODEC_SNAPPY: return unsnappy(in, len, max, out, why);
    default: return unlz4(in, len, magic, max, out, why);
    }
}

int kc_records_decompress(int codec, const uint8_t *in, size_t len, size_t max, kc_buf_t *out)
{
    if (codec < LEGACY_CODEC_GZIP || codec > LEGACY_CODEC_LZ4)
        return -1;
    const char *why;
    return decompress(codec, 2, in, len, max, out, &why) == 0 ? 0 : -1;
}

/* Converts the inner messages of the compressed wrapper w (codec, at
 * producer offset w_offset) into c. */
static int16_t convert_compressed(conv_t *c, const legacy_msg_t *w, int codec, int64_t w_offset,
                                  size_t max, const char **why)
{
    if (w->vlen < 0) {
        *why = "Found invalid compressed record set with null value";
        return KC_ERR_INVALID_RECORD;
    }
    bool lat = w->magic == 1 && (w->attrs & LEGACY_ATTR_LOG_APPEND_TIME);
    if (lat)
        c->log_append = true;
    kc_buf_t plain;
    kc_buf_init(&plain);
    int16_t err = decompress(codec, w->magic, w->value, (size_t)w->vlen, max, &plain, why);
    int32_t inner = 0;
    int64_t last_offset = 0;
    size_t pos = 0;
    while (!err && plain.len - pos >= LEGACY_LOG_OVERHEAD) {
        int64_t off = (int64_t)get64(plain.data + pos);
        int32_t size = (int32_t)get32(plain.data + pos + 8);
        if (size < 0 || (size_t)size > plain.len - pos - LEGACY_LOG_OVERHEAD)
            break; /* a partial trailing entry ends the inner set */
        legacy_msg_t m;
        err = parse_record(plain.data + pos + LEGACY_LOG_OVERHEAD, (size_t)size, &m, why);
        if (err)
            break;
        pos += LEGACY_LOG_OVERHEAD + (size_t)size;
        if (m.attrs & LEGACY_ATTR_COMPRESSION) {
            *why = "Inner messages must not be compressed";
            err = KC_ERR_INVALID_RECORD;
            break;
        }
        if (m.magic != w->magic) {
            *why = "Compressed message magic does not match wrapper magic";
            err = KC_ERR_INVALID_RECORD;
            break;
        }
        if (lat)
            m.ts = w->ts;
        last_offset = off;
        add_record(c, &m);
        inner++;
    }
    if (!err && inner == 0) {
        *why = "Found invalid compressed record set with no inner records";
        err = KC_ERR_INVALID_RECORD;
    }
    /* magic 1: inner offsets are relative, the wrapper carries the last
     * absolute one (or 0, as some producers send) */
    if (!err && w->magic == 1 && w_offset != 0 && w_offset < last_offset) {
        *why = "Found invalid wrapper offset in compressed v1 message set";
        err = KC_ERR_INVALID_RECORD;
    }
    kc_buf_deinit(&plain);
    return err;
}

/* Compresses in into out as one gzip stream. */
static int16_t gzip_into(const kc_buf_t *in, kc_buf_t *out, const char **why)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
        *why = "Failed to initialise gzip compression";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    zs.next_in = in->data ? in->data : (Bytef *)"";
    zs.avail_in = (uInt)in->len;
    int rc;
    do {
        size_t room = deflateBound(&zs, (uLong)in->len) + 64;
        zs.next_out = kc_buf_reserve(out, room);
        zs.avail_out = (uInt)room;
        rc = deflate(&zs, Z_FINISH);
        out->len += room - zs.avail_out;
    } while (rc == Z_OK || rc == Z_BUF_ERROR);
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) {
        *why = "gzip compression failed";
        return KC_ERR_CORRUPT_MESSAGE;
    }
    return 0;
}

int16_t kc_legacy_convert(const uint8_t *in, size_t len, size_t inflate_max, kc_buf_t *out,
                          const char **why)
{
    conv_t c;
    memset(&c, 0, sizeof(c));
    kc_buf_init(&c.recs);
    c.max_ts = -1;
    int codec = 0;
    int entries = 0;
    int16_t err = 0;
    size_t pos = 0;
    while (in && len - pos >= LEGACY_LOG_OVERHEAD) {
        int64_t off = (int64_t)get64(in + pos);
        int32_t size = (int32_t)get32(in + pos + 8);
        if (size < 0 || (size_t)size > len - pos - LEGACY_LOG_OVERHEAD)
            break; /* a partial trailing entry ends the set */
        legacy_msg_t m;
        err = parse_record(in + pos + LEGACY_LOG_OVERHEAD, (size_t)size, &m, why);
        if (err)
            break;
        pos += LEGACY_LOG_OVERHEAD + (size_t)size;
        int mc = m.attrs & LEGACY_ATTR_COMPRESSION;
        if (mc > LEGACY_CODEC_LZ4) {
            /* zstd needs magic 2 (DeepRecordsIterator); other ids are unknown */
            *why = mc == 4 ? "Invalid wrapper compression type zstd for magic 0 or 1"
                           : "Unknown compression type id";
            err = mc == 4 ? KC_ERR_INVALID_RECORD : KC_ERR_UNKNOWN_SERVER_ERROR;
            break;
        }
        if (entries > 0 && (mc != 0 || codec != 0)) {
            *why = "Compressed outer record has more than one batch";
            err = KC_ERR_INVALID_RECORD;
            break;
        }
        entries++;
        if (mc == 0) {
            if (m.magic == 1 && (m.attrs & LEGACY_ATTR_LOG_APPEND_TIME))
                c.log_append = true;
            add_record(&c, &m);
            continue;
        }
        codec = mc;
        err = convert_compressed(&c, &m, mc, off, inflate_max, why);
        if (err)
            break;
    }
    if (!err && c.count == 0) {
        *why = "Produce requests must have at least one record batch per partition";
        err = KC_ERR_INVALID_RECORD;
    }
    kc_buf_t gz;
    kc_buf_init(&gz);
    if (!err && codec == LEGACY_CODEC_GZIP)
        err = gzip_into(&c.recs, &gz, why);
    else if (!err && codec == LEGACY_CODEC_SNAPPY)
        snappy_into(&c.recs, &gz);
    else if (!err && codec == LEGACY_CODEC_LZ4)
        lz4_into(&c.recs, &gz);
    if (err) {
        kc_buf_deinit(&gz);
        kc_buf_deinit(&c.recs);
        return err;
    }
    const kc_buf_t *payload = codec ? &gz : &c.recs;
    int16_t attrs = (int16_t)((c.log_append ? BATCH_ATTR_LOG_APPEND_TIME : 0) | codec);
    size_t start = out->len;
    kc_write_int64(out, 0);                            /* BaseOffset */
    kc_write_int32(out, (int32_t)(49 + payload->len)); /* BatchLength */
    kc_write_int32(out, -1);                           /* PartitionLeaderEpoch */
    uint8_t magic = 2;
    kc_buf_append(out, &magic, 1);
    kc_write_uint32(out, 0);                           /* CRC, below */
    kc_write_int16(out, attrs);
    kc_write_int32(out, c.count - 1);                  /* LastOffsetDelta */
    kc_write_int64(out, c.base_ts);
    kc_write_int64(out, c.max_ts);
    kc_write_int64(out, -1);                           /* ProducerId */
    kc_write_int16(out, -1);                           /* ProducerEpoch */
    kc_write_int32(out, -1);                           /* BaseSequence */
    kc_write_int32(out, c.count);
    kc_buf_append(out, payload->data, payload->len);
    kc_buf_deinit(&gz);
    kc_buf_deinit(&c.recs);
    put32(out->data + start + 17,
          kc_crc32c(0, out->data + start + 21, out->len - start - 21));
    return 0;
}

int kc_records_compress(int codec, const uint8_t *in, size_t len, kc_buf_t *out)
{
    kc_buf_t src = {(uint8_t *)(uintptr_t)in, len, len}; /* read only, never freed */
    const char *why;
    switch (codec) {
    case LEGACY_CODEC_GZIP: return gzip_into(&src, out, &why) == 0 ? 0 : -1;
    case LEGACY_CODEC_SNAPPY: snappy_into(&src, out); return 0;
    case LEGACY_CODEC_LZ4: lz4_into(&src, out); return 0;
    default: return -1;
    }
}
