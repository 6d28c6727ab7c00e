/* SPDX-License-Identifier: Apache-2.0 */
/* Conversion of magic 0/1 message sets (Produce v0-2) into a magic 2 batch. */
#include "legacy.h"

#include <string.h>

#include <zlib.h>

#include "crc32c.h"
#include "wire.h"

#define LEGACY_LOG_OVERHEAD 12 /* offset int64 + size int32 */
#define LEGACY_ATTR_COMPRESSION 0x07
#define LEGACY_ATTR_LOG_APPEND_TIME 0x08
#define BATCH_ATTR_LOG_APPEND_TIME 0x08
#define LEGACY_CODEC_GZIP 1

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
            *why = "Decompressed message set exceeds the maximum message size (message.max.bytes)";
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

/* Converts the inner messages of the gzip wrapper w (at producer offset
 * w_offset) into c. */
static int16_t convert_gzip(conv_t *c, const legacy_msg_t *w, int64_t w_offset, size_t max,
                            const char **why)
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
    int16_t err = gunzip(w->value, (size_t)w->vlen, max, &plain, why);
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

int16_t kc_legacy_convert(const uint8_t *in, size_t len, size_t max_bytes, kc_buf_t *out,
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
        if (mc != 0 && mc != LEGACY_CODEC_GZIP) {
            *why = "Compressed message sets of magic 0 and 1 are supported with gzip only";
            err = KC_ERR_UNSUPPORTED_COMPRESSION_TYPE;
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
        err = convert_gzip(&c, &m, off, max_bytes, why);
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
