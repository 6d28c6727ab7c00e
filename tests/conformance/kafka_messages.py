# SPDX-License-Identifier: Apache-2.0
"""Every Kafka request and response, encoded and decoded from Kafka's own
message definitions.

The definitions are the JSON message specs that Apache Kafka ships inside
the kafka-clients jar (`common/message/*.json`); the jar comes from Maven
Central with the reference broker (tests/reference/pom.xml). Reading them
at run time keeps this codec independent of kcoord's own schema files: a
field kcoord encodes wrongly shows up as a decoding error or a differing
field, never as two copies of the same mistake.

Messages are plain dicts keyed by Kafka's field names (`GroupId`,
`MemberEpoch`); a nested struct is a dict, an array a list, bytes are
`bytes`, a uuid is 16 `bytes`. Encoding fills absent fields with the
spec's default (or the type's zero value). Decoding returns only the
fields that exist in that version, tagged fields included by name; tags
the spec does not know are kept under "_unknown_tags".

    specs = Specs.load()                      # from the reference classpath
    body = specs.encode_request("JoinGroup", 9, {...})
    resp = specs.decode_response("JoinGroup", 9, payload)
"""

import json
import os
import re
import struct
import sys
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "reference"))
import reference_kafka  # noqa: E402


class CodecError(Exception):
    pass


def _strip_comments(text):
    # The specs carry // line comments outside strings (license, notes).
    out = []
    for line in text.splitlines():
        i, in_str = 0, False
        while i < len(line):
            c = line[i]
            if c == '"' and (i == 0 or line[i - 1] != "\\"):
                in_str = not in_str
            elif not in_str and line.startswith("//", i):
                line = line[:i]
                break
            i += 1
        out.append(line)
    return "\n".join(out)


class Versions:
    """A version range such as "0+", "3-7", "5" or "none"."""

    def __init__(self, s):
        s = (s or "none").strip()
        if s == "none":
            self.lo, self.hi = 1, 0
        elif s.endswith("+"):
            self.lo, self.hi = int(s[:-1]), 32767
        elif "-" in s:
            a, b = s.split("-")
            self.lo, self.hi = int(a), int(b)
        else:
            self.lo = self.hi = int(s)

    def __contains__(self, v):
        return self.lo <= v <= self.hi

    def __repr__(self):
        return "%d-%d" % (self.lo, self.hi)


class Field:
    def __init__(self, d, structs):
        self.name = d["name"]
        self.type = d["type"]
        self.versions = Versions(d.get("versions", "0+"))
        self.nullable = Versions(d.get("nullableVersions", "none"))
        self.tagged = Versions(d.get("taggedVersions", "none"))
        self.tag = d.get("tag")
        self.default = d.get("default")
        self.ignorable = d.get("ignorable", False)
        self.fields = None
        t = self.type[2:] if self.type.startswith("[]") else self.type
        if "fields" in d:
            self.fields = [Field(f, structs) for f in d["fields"]]
            structs.setdefault(t, self.fields)
        self.elem = t
        self._structs = structs

    @property
    def is_array(self):
        return self.type.startswith("[]")

    def struct_fields(self):
        if self.fields is not None:
            return self.fields
        return self._structs.get(self.elem)

    def zero(self):
        """The value written when a message leaves the field out."""
        if self.is_array:
            # A nullable array whose default is null (ConsumerGroupHeartbeat's
            # "unchanged" fields) is sent as null when left out.
            return None if self.default == "null" else []
        t = self.type
        d = self.default
        if t in ("int8", "int16", "uint16", "int32", "uint32", "int64"):
            if d is None or d == "":
                return 0
            return int(d, 0) if isinstance(d, str) else int(d)
        if t == "float64":
            return float(d) if d not in (None, "") else 0.0
        if t == "bool":
            return d in (True, "true")
        if t == "string":
            if d == "null":
                return None
            return d if isinstance(d, str) else ""
        if t in ("bytes", "records"):
            return None if d == "null" else b""
        if t == "uuid":
            return bytes(16)
        # a struct
        if d == "null":
            return None
        return {}


class Message:
    def __init__(self, d):
        self.name = d["name"]
        self.kind = d["type"]
        self.api_key = d.get("apiKey")
        self.valid = Versions(d.get("validVersions", "0"))
        self.flexible = Versions(d.get("flexibleVersions", "none"))
        self.structs = {}
        for cs in d.get("commonStructs", []):
            self.structs[cs["name"]] = None  # placeholder, filled below
        for cs in d.get("commonStructs", []):
            self.structs[cs["name"]] = [Field(f, self.structs) for f in cs["fields"]]
        self.fields = [Field(f, self.structs) for f in d.get("fields", [])]


# ---------------------------------------------------------------- encoding

def _uvarint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


_SCALARS = {"int8": ">b", "int16": ">h", "uint16": ">H", "int32": ">i", "uint32": ">I",
            "int64": ">q", "float64": ">d"}


def _enc_value(f, t, v, ver, flex, out):
    if t in _SCALARS:
        out.append(struct.pack(_SCALARS[t], v))
    elif t == "bool":
        out.append(b"\x01" if v else b"\x00")
    elif t == "uuid":
        if len(v) != 16:
            raise CodecError("%s: uuid must be 16 bytes" % f.name)
        out.append(bytes(v))
    elif t == "string":
        if v is None:
            out.append(_uvarint(0) if flex else struct.pack(">h", -1))
        else:
            b = v.encode("utf-8")
            out.append((_uvarint(len(b) + 1) if flex else struct.pack(">h", len(b))) + b)
    elif t in ("bytes", "records"):
        if v is None:
            out.append(_uvarint(0) if flex else struct.pack(">i", -1))
        else:
            b = bytes(v)
            out.append((_uvarint(len(b) + 1) if flex else struct.pack(">i", len(b))) + b)
    else:
        _enc_struct(f.struct_fields(), v, ver, flex, out, f.name)


def _enc_field(f, v, ver, flex, out):
    if f.is_array:
        if v is None:
            out.append(_uvarint(0) if flex else struct.pack(">i", -1))
            return
        out.append(_uvarint(len(v) + 1) if flex else struct.pack(">i", len(v)))
        for item in v:
            _enc_value(f, f.elem, item, ver, flex, out)
    elif f.struct_fields() is not None and f.type not in _SCALARS:
        if v is None:
            out.append(b"\xff")
        else:
            if ver in f.nullable:
                out.append(b"\x01")
            _enc_struct(f.struct_fields(), v, ver, flex, out, f.name)
    else:
        _enc_value(f, f.type, v, ver, flex, out)


def _enc_struct(fields, d, ver, flex, out, where):
    d = d or {}
    known = {f.name for f in fields}
    for k in d:
        if k not in known and not k.startswith("_"):
            raise CodecError("%s: no field %r" % (where, k))
    tagged = []
    for f in fields:
        present = ver in f.versions
        if not present:
            if f.name in d and d[f.name] != f.zero() and not f.ignorable:
                raise CodecError("%s.%s does not exist in version %d" % (where, f.name, ver))
            continue
        v = d.get(f.name, f.zero())
        if v is None and ver not in f.nullable and (f.is_array or f.type in ("string", "bytes")):
            if not d.get("_allow_null"):
                raise CodecError("%s.%s is not nullable in version %d" % (where, f.name, ver))
        if flex and ver in f.tagged:
            if f.name in d and v != f.zero():
                tagged.append((f.tag, f, v))
            continue
        _enc_field(f, v, ver, flex, out)
    if flex:
        raw = d.get("_unknown_tags", {})
        items = []
        for tag, f, v in tagged:
            part = []
            _enc_field(f, v, ver, True, part)
            items.append((tag, b"".join(part)))
        for tag, b in raw.items():
            items.append((int(tag), bytes.fromhex(b) if isinstance(b, str) else b))
        items.sort()
        out.append(_uvarint(len(items)))
        for tag, b in items:
            out.append(_uvarint(tag) + _uvarint(len(b)) + b)


# ---------------------------------------------------------------- decoding

class _Reader:
    def __init__(self, data):
        self.data = memoryview(data)
        self.pos = 0

    def take(self, n):
        if n < 0 or self.pos + n > len(self.data):
            raise CodecError("truncated at byte %d (want %d of %d)" % (self.pos, n, len(self.data)))
        b = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        return b

    def unpack(self, fmt, n):
        return struct.unpack(fmt, self.take(n))[0]

    def uvarint(self):
        shift = v = 0
        while True:
            b = self.take(1)[0]
            v |= (b & 0x7F) << shift
            if not b & 0x80:
                return v
            shift += 7
            if shift > 35:
                raise CodecError("varint too long")


_SIZES = {"int8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8, "float64": 8}


def _dec_value(f, t, r, ver, flex):
    if t in _SCALARS:
        return r.unpack(_SCALARS[t], _SIZES[t])
    if t == "bool":
        return r.take(1) != b"\x00"
    if t == "uuid":
        return r.take(16)
    if t == "string":
        n = (r.uvarint() - 1) if flex else r.unpack(">h", 2)
        if n < 0:
            return None
        try:
            return r.take(n).decode("utf-8")
        except UnicodeDecodeError as e:
            raise CodecError("%s: invalid UTF-8 (%s)" % (f.name, e))
    if t in ("bytes", "records"):
        n = (r.uvarint() - 1) if flex else r.unpack(">i", 4)
        if n < 0:
            return None
        return r.take(n)
    return _dec_struct(f.struct_fields(), r, ver, flex, f.name)


def _dec_field(f, r, ver, flex):
    if f.is_array:
        n = (r.uvarint() - 1) if flex else r.unpack(">i", 4)
        if n < 0:
            return None
        if n > len(r.data) - r.pos:
            raise CodecError("%s: array of %d items in %d bytes" % (f.name, n, len(r.data) - r.pos))
        return [_dec_value(f, f.elem, r, ver, flex) for _ in range(n)]
    if f.struct_fields() is not None and f.type not in _SCALARS and f.type not in (
            "string", "bytes", "records", "uuid", "bool"):
        if ver in f.nullable:
            marker = r.unpack(">b", 1)
            if marker < 0:
                return None
        return _dec_struct(f.struct_fields(), r, ver, flex, f.name)
    return _dec_value(f, f.type, r, ver, flex)


def _dec_struct(fields, r, ver, flex, where):
    out = {}
    tags = {}
    for f in fields:
        if ver not in f.versions:
            continue
        if flex and ver in f.tagged:
            tags[f.tag] = f
            out[f.name] = f.zero()
            continue
        out[f.name] = _dec_field(f, r, ver, flex)
    if flex:
        n = r.uvarint()
        unknown = {}
        for _ in range(n):
            tag = r.uvarint()
            size = r.uvarint()
            raw = r.take(size)
            f = tags.get(tag)
            if f is None:
                unknown[str(tag)] = raw.hex()
            else:
                sub = _Reader(raw)
                out[f.name] = _dec_field(f, sub, ver, True)
                if sub.pos != len(raw):
                    raise CodecError("%s.%s: %d bytes left in tagged field"
                                     % (where, f.name, len(raw) - sub.pos))
        if unknown:
            out["_unknown_tags"] = unknown
    return out


# ---------------------------------------------------------------- the specs

class Specs:
    """All request, response and header messages of one Kafka release."""

    _cache = None

    def __init__(self, messages):
        self.by_name = {m.name: m for m in messages}
        self.requests = {m.api_key: m for m in messages if m.kind == "request"}
        self.responses = {m.api_key: m for m in messages if m.kind == "response"}
        self.api_names = {k: m.name[:-len("Request")] for k, m in self.requests.items()}
        self.api_keys = {v: k for k, v in self.api_names.items()}

    @classmethod
    def load(cls, jar_path=None):
        """Reads the specs from kafka-clients' jar (the reference classpath's
        by default); cached for the process."""
        if cls._cache is not None and jar_path is None:
            return cls._cache
        jar_path = jar_path or reference_kafka.jar("kafka-clients-")
        msgs = []
        with zipfile.ZipFile(jar_path) as z:
            for name in z.namelist():
                if re.fullmatch(r"common/message/[A-Za-z]+\.json", name):
                    d = json.loads(_strip_comments(z.read(name).decode("utf-8")))
                    if d.get("type") in ("request", "response", "header"):
                        msgs.append(Message(d))
        if not msgs:
            raise CodecError("no message specs in %s" % jar_path)
        specs = cls(msgs)
        if jar_path == reference_kafka.jar("kafka-clients-"):
            cls._cache = specs
        return specs

    def api_key(self, api):
        return api if isinstance(api, int) else self.api_keys[api]

    def api_name(self, key):
        return self.api_names.get(key, str(key))

    def request_header_version(self, key, ver):
        m = self.requests[key]
        if key == 7 and ver == 0:  # ControlledShutdown v0
            return 0
        return 2 if ver in m.flexible else 1

    def response_header_version(self, key, ver):
        if key == 18:  # ApiVersions answers with header v0 always
            return 0
        return 1 if ver in self.responses[key].flexible else 0

    def encode_request(self, api, ver, body):
        key = self.api_key(api)
        m = self.requests[key]
        out = []
        _enc_struct(m.fields, body, ver, ver in m.flexible, out, m.name)
        return b"".join(out)

    def encode_request_header(self, api, ver, correlation_id, client_id):
        key = self.api_key(api)
        hv = self.request_header_version(key, ver)
        h = self.by_name["RequestHeader"]
        out = []
        # ClientId is a classic string even in header v2.
        d = {"RequestApiKey": key, "RequestApiVersion": ver, "CorrelationId": correlation_id,
             "ClientId": client_id}
        for f in h.fields:
            if hv not in f.versions or (hv >= 2 and hv in f.tagged):
                continue
            _enc_field(f, d.get(f.name, f.zero()), hv, False, out)
        if hv >= 2:
            out.append(b"\x00")
        return b"".join(out)

    def decode_response(self, api, ver, payload):
        """payload: the frame after the correlation id. Returns the body as a
        dict; raises CodecError on malformed bytes or bytes left over."""
        key = self.api_key(api)
        r = _Reader(payload)
        if self.response_header_version(key, ver) >= 1:
            n = r.uvarint()
            for _ in range(n):
                r.uvarint()
                r.take(r.uvarint())
        m = self.responses[key]
        body = _dec_struct(m.fields, r, ver, ver in m.flexible, m.name)
        if r.pos != len(r.data):
            raise CodecError("%s v%d: %d bytes left after the body"
                             % (m.name, ver, len(r.data) - r.pos))
        return body

    def decode_request(self, api, ver, payload):
        key = self.api_key(api)
        m = self.requests[key]
        r = _Reader(payload)
        body = _dec_struct(m.fields, r, ver, ver in m.flexible, m.name)
        if r.pos != len(r.data):
            raise CodecError("%s v%d: %d bytes left" % (m.name, ver, len(r.data) - r.pos))
        return body

    def valid_versions(self, api):
        m = self.requests[self.api_key(api)]
        return m.valid.lo, m.valid.hi
