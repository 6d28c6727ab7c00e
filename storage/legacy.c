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
#define ERR_CORRUPT_MESSAGE 2
#define ERR_UNSUPPORTED_COMPRESSION_TYPE 76
#define ERR_INVALID_RECORD 87

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
} legacy_msg_t;

/* Parses one LegacyRecord of rlen bytes at r. Returns 0 or an error code. */
static int16_t parse_record(const uint8_t *r, size_t rlen, legacy_msg_t *m, bool *log_append,
                            const char **why)
{
    if (rlen < 14) {
        *why = "Record size is less than the minimum record overhead (14)";
        return ERR_CORRUPT_MESSAGE;
    }
    int8_t magic = (int8_t)r[4];
    if (magic != 0 && magic != 1) {
        *why = "Invalid magic found in record";
        return ERR_CORRUPT_MESSAGE;
    }
    size_t hdr = magic == 1 ? 14 : 6; /* crc, magic, attributes, [timestamp] */
    if (rlen < hdr + 8) {
        *why = "Record size is less than the minimum record overhead";
        return ERR_CORRUPT_MESSAGE;
    }
    uint32_t crc = (uint32_t)crc32(0L, r + 4, (uInt)(rlen - 4));
    if (crc != get32(r)) {
        *why = "Record is corrupt (stored crc does not match computed crc)";
        return ERR_CORRUPT_MESSAGE;
    }
    uint8_t attrs = r[5];
    if (attrs & LEGACY_ATTR_COMPRESSION) {
        *why = "Compressed message sets of magic 0 and 1 are not supported";
        return ERR_UNSUPPORTED_COMPRESSION_TYPE;
    }
    m->ts = magic == 1 ? (int64_t)get64(r + 6) : -1;
    if (magic == 1 && (attrs & LEGACY_ATTR_LOG_APPEND_TIME))
        *log_append = true;
    size_t pos = hdr;
    for (int i = 0; i < 2; i++) {
        if (rlen - pos < 4) {
            *why = "Record is truncated";
            return ERR_CORRUPT_MESSAGE;
        }
        int32_t n = (int32_t)get32(r + pos);
        pos += 4;
        if (n < -1 || (n > 0 && (size_t)n > rlen - pos)) {
            *why = "Record key or value size is invalid";
            return ERR_CORRUPT_MESSAGE;
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
        return ERR_CORRUPT_MESSAGE;
    }
    return 0;
}

int16_t kc_legacy_convert(const uint8_t *in, size_t len, kc_buf_t *out, const char **why)
{
    kc_buf_t recs;
    kc_buf_init(&recs);
    int32_t count = 0;
    int64_t base_ts = 0, max_ts = -1;
    bool log_append = false;
    int16_t err = 0;
    size_t pos = 0;
    while (in && len - pos >= LEGACY_LOG_OVERHEAD) {
        int32_t size = (int32_t)get32(in + pos + 8);
        if (size < 0 || (size_t)size > len - pos - LEGACY_LOG_OVERHEAD)
            break; /* a partial trailing entry ends the set */
        legacy_msg_t m;
        err = parse_record(in + pos + LEGACY_LOG_OVERHEAD, (size_t)size, &m, &log_append, why);
        if (err)
            break;
        pos += LEGACY_LOG_OVERHEAD + (size_t)size;
        if (count == 0)
            base_ts = m.ts;
        if (m.ts > max_ts)
            max_ts = m.ts;
        kc_buf_t one;
        kc_buf_init(&one);
        uint8_t zero = 0;
        kc_buf_append(&one, &zero, 1); /* record attributes */
        kc_write_varlong(&one, m.ts - base_ts);
        kc_write_varint(&one, count);
        kc_write_varint(&one, m.klen);
        if (m.klen > 0)
            kc_buf_append(&one, m.key, (size_t)m.klen);
        kc_write_varint(&one, m.vlen);
        if (m.vlen > 0)
            kc_buf_append(&one, m.value, (size_t)m.vlen);
        kc_write_varint(&one, 0); /* no headers */
        kc_write_varint(&recs, (int32_t)one.len);
        kc_buf_append(&recs, one.data, one.len);
        kc_buf_deinit(&one);
        count++;
    }
    if (!err && count == 0) {
        *why = "Produce requests must have at least one record batch per partition";
        err = ERR_INVALID_RECORD;
    }
    if (err) {
        kc_buf_deinit(&recs);
        return err;
    }
    size_t start = out->len;
    kc_write_int64(out, 0);                           /* BaseOffset */
    kc_write_int32(out, (int32_t)(49 + recs.len));    /* BatchLength */
    kc_write_int32(out, -1);                          /* PartitionLeaderEpoch */
    uint8_t magic = 2;
    kc_buf_append(out, &magic, 1);
    kc_write_uint32(out, 0);                          /* CRC, below */
    kc_write_int16(out, log_append ? BATCH_ATTR_LOG_APPEND_TIME : 0);
    kc_write_int32(out, count - 1);                   /* LastOffsetDelta */
    kc_write_int64(out, base_ts);
    kc_write_int64(out, max_ts);
    kc_write_int64(out, -1);                          /* ProducerId */
    kc_write_int16(out, -1);                          /* ProducerEpoch */
    kc_write_int32(out, -1);                          /* BaseSequence */
    kc_write_int32(out, count);
    kc_buf_append(out, recs.data, recs.len);
    kc_buf_deinit(&recs);
    put32(out->data + start + 17,
          kc_crc32c(0, out->data + start + 21, out->len - start - 21));
    return 0;
}
