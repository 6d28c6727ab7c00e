#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates kc_msgs.h and kc_msgs.c from the message schemas.

Reads every net/proto/schema/*.schema file (format: schema/README.md) and
emits, per message, a C struct, _init, _decode, _encode, _fill_sample,
_visit_errors, the version constants, KC_API_*/KC_RECORD_* constants and a
descriptor table, plus one function building the error response of every API
whose response schema marks it (errcode, errmsg, errvalue, echo, errversions,
unanswered: schema/README.md).
Standard library only; the output is deterministic.

Usage:
  kcgen.py --schema-dir DIR --out-dir DIR [--depfile FILE]
  kcgen.py --schema-dir DIR --list        (prints the schema files)
"""

import argparse
import os
import re
import sys

SCALARS = {
    # name: (C type, reader/writer suffix, fixed wire size)
    'bool': ('bool', 'bool', 1),
    'int8': ('int8_t', 'int8', 1),
    'int16': ('int16_t', 'int16', 2),
    'int32': ('int32_t', 'int32', 4),
    'int64': ('int64_t', 'int64', 8),
    'uint16': ('uint16_t', 'uint16', 2),
    'uint32': ('uint32_t', 'uint32', 4),
    'float64': ('double', 'float64', 8),
    'uuid': ('kc_uuid_t', 'uuid', 16),
}
VARLEN = {'string', 'bytes', 'records'}
INT_RANGES = {
    'int8': (-(1 << 7), (1 << 7) - 1),
    'int16': (-(1 << 15), (1 << 15) - 1),
    'int32': (-(1 << 31), (1 << 31) - 1),
    'int64': (-(1 << 63), (1 << 63) - 1),
    'uint16': (0, (1 << 16) - 1),
    'uint32': (0, (1 << 32) - 1),
}
# Array types of scalars; those two come from wire.h, the rest are emitted here.
SCALAR_ARRAY_TYPES = {
    'int32': 'kc_int32_array_t', 'string': 'kc_str_array_t',
    'int8': 'kc_int8_array_t', 'int16': 'kc_int16_array_t', 'int64': 'kc_int64_array_t',
    'uint16': 'kc_uint16_array_t', 'uint32': 'kc_uint32_array_t',
    'float64': 'kc_float64_array_t', 'bool': 'kc_bool_array_t', 'uuid': 'kc_uuid_array_t',
    'bytes': 'kc_bytes_array_t', 'records': 'kc_bytes_array_t',
}
# Hand-written in wire.c; their schema is documentation only.
SKIPPED_MESSAGES = {'RequestHeader', 'ResponseHeader'}
C_KEYWORDS = {
    'auto', 'break', 'case', 'char', 'const', 'continue', 'default', 'do', 'double',
    'else', 'enum', 'extern', 'float', 'for', 'goto', 'if', 'inline', 'int', 'long',
    'register', 'restrict', 'return', 'short', 'signed', 'sizeof', 'static', 'struct',
    'switch', 'typedef', 'union', 'unsigned', 'void', 'volatile', 'while', 'bool',
    'true', 'false',
}


class SchemaError(Exception):
    pass


def snake(name):
    s = re.sub(r'(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])', '_', name)
    return s.lower()


class Range:
    """Inclusive version range; hi None = open-ended."""

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def contains(self, v):
        return v >= self.lo and (self.hi is None or v <= self.hi)

    def cond(self, var='v'):
        """C expression true when var is in the range."""
        parts = []
        if self.lo > 0:
            parts.append('%s >= %d' % (var, self.lo))
        if self.hi is not None:
            parts.append('%s <= %d' % (var, self.hi))
        return ' && '.join(parts) if parts else 'true'


def parse_range(text, where):
    m = re.fullmatch(r'(\d+)(\+|-(\d+))?', text)
    if not m:
        raise SchemaError('%s: bad version range %r' % (where, text))
    lo = int(m.group(1))
    if m.group(2) == '+':
        return Range(lo, None)
    hi = int(m.group(3)) if m.group(3) is not None else lo
    if hi < lo:
        raise SchemaError('%s: empty version range %r' % (where, text))
    return Range(lo, hi)


class Struct:
    def __init__(self, name, cname, fields, where):
        self.name = name
        self.cname = cname  # e.g. kc_join_group_request_protocol
        self.fields = fields
        self.where = where


class Field:
    def __init__(self, name, typ, where):
        self.name = name
        self.cname = snake(name)
        if self.cname in C_KEYWORDS:
            self.cname += '_'
        self.where = where
        self.is_array = typ.startswith('[]')
        self.base = typ[2:] if self.is_array else typ
        self.versions = Range(0, None)
        self.nullable = None  # Range or None
        self.default = None   # raw text or None
        self.ignorable = False
        self.tag = None
        self.nonflexible = False
        self.children = []
        self.struct = None    # Struct for struct types
        # Error-response markers (schema/README.md, "Error responses").
        self.errcode = False      # takes the error code
        self.errmsg = False       # takes Kafka's default message of the code
        self.errversions = False  # ApiVersions: this API's own range on UNSUPPORTED_VERSION
        self.errvalue = None      # raw text: the value instead of the default
        self.echo = []            # [(request field name or None, Range)]
        self.unanswered = None    # raw text (requests): no error response for this value

    @property
    def has_err_marker(self):
        return (self.errcode or self.errmsg or self.errversions or self.errvalue is not None
                or bool(self.echo))

    @property
    def is_struct(self):
        return self.base not in SCALARS and self.base not in VARLEN

    @property
    def is_ptr(self):
        """A single nullable struct is held through a pointer."""
        return self.is_struct and not self.is_array and self.nullable is not None


class Message:
    def __init__(self, name, versions, flex_min, api, record, path):
        self.name = name
        self.snake = snake(name)
        self.versions = versions
        self.flex_min = flex_min  # int or None
        self.api = api
        self.record = record
        self.path = path
        self.root = None  # Struct
        self.structs = []  # nested structs defined by this message, children first


def parse_field_line(tokens, where):
    if len(tokens) < 2:
        raise SchemaError('%s: expected "<Name> <type> [attributes]"' % where)
    f = Field(tokens[0], tokens[1], where)
    if not re.fullmatch(r'[A-Za-z][A-Za-z0-9]*', f.name):
        raise SchemaError('%s: field name %r is not an identifier' % (where, f.name))
    if not re.fullmatch(r'[A-Za-z][A-Za-z0-9]*', f.base):
        raise SchemaError('%s: bad type %r' % (where, tokens[1]))
    for attr in tokens[2:]:
        if attr.startswith('v') and re.fullmatch(r'v\d+(\+|-\d+)?', attr):
            f.versions = parse_range(attr[1:], where)
        elif attr == 'nullable':
            f.nullable = Range(0, None)
        elif attr.startswith('nullable='):
            f.nullable = parse_range(attr[len('nullable='):], where)
        elif attr.startswith('default='):
            f.default = attr[len('default='):]
        elif attr == 'ignorable':
            f.ignorable = True
        elif attr.startswith('tag='):
            try:
                f.tag = int(attr[4:])
            except ValueError:
                raise SchemaError('%s: bad tag %r' % (where, attr))
            if f.tag < 0:
                raise SchemaError('%s: negative tag' % where)
        elif attr == 'nonflexible':
            f.nonflexible = True
        elif attr == 'errcode':
            f.errcode = True
        elif attr == 'errmsg':
            f.errmsg = True
        elif attr == 'errversions':
            f.errversions = True
        elif attr.startswith('errvalue='):
            f.errvalue = attr[len('errvalue='):]
        elif attr.startswith('unanswered='):
            f.unanswered = attr[len('unanswered='):]
        elif re.fullmatch(r'echo(=[A-Za-z][A-Za-z0-9]*)?(:v\d+(\+|-\d+)?)?', attr):
            em = re.fullmatch(r'echo(?:=([A-Za-z0-9]+))?(?::v(\S+))?', attr)
            f.echo.append((em.group(1),
                           parse_range(em.group(2), where) if em.group(2) else Range(0, None)))
        else:
            raise SchemaError('%s: unknown attribute %r' % (where, attr))
    if f.nullable is not None and not f.is_array and f.base in SCALARS:
        raise SchemaError('%s: a %s cannot be nullable' % (where, f.base))
    return f


def tokenize(line):
    """Splits on blanks, keeping default="a b" together."""
    return re.findall(r'[^\s"]*"[^"]*"|\S+', line)


def parse_file(path):
    messages = []
    with open(path, encoding='utf-8') as fh:
        lines = fh.read().split('\n')
    stack = []  # (indent, field list)
    cur = None
    last_field = None
    for lineno, raw in enumerate(lines, 1):
        where = '%s:%d' % (os.path.basename(path), lineno)
        out, inq = [], False
        for ch in raw:  # drop a comment that is outside quotes
            if ch == '"':
                inq = not inq
            if ch == '#' and not inq:
                break
            out.append(ch)
        line = ''.join(out).rstrip()
        if not line.strip():
            continue
        if '\t' in line:
            raise SchemaError('%s: tabs are not allowed' % where)
        indent = len(line) - len(line.lstrip(' '))
        tokens = tokenize(line.strip())
        if indent == 0:
            if tokens[0] != 'message':
                raise SchemaError('%s: expected "message"' % where)
            m = re.fullmatch(
                r'message ([A-Z][A-Za-z0-9]*) versions (\S+) flexible (\S+)'
                r'((?: (?:api|record) -?\d+)*)', ' '.join(tokens))
            if not m:
                raise SchemaError('%s: bad message line' % where)
            versions = parse_range(m.group(2), where)
            if versions.hi is None:
                raise SchemaError('%s: message versions must be closed' % where)
            if m.group(3) == 'none':
                flex = None
            else:
                fm = re.fullmatch(r'(\d+)\+', m.group(3))
                if not fm:
                    raise SchemaError('%s: bad flexible %r' % (where, m.group(3)))
                flex = int(fm.group(1))
            api = record = None
            extra = m.group(4).split()
            for i in range(0, len(extra), 2):
                if extra[i] == 'api':
                    api = int(extra[i + 1])
                else:
                    record = int(extra[i + 1])
            cur = Message(m.group(1), versions, flex, api, record, path)
            cur.fields = []
            messages.append(cur)
            stack = [(2, cur.fields)]
            last_field = None
            continue
        if cur is None:
            raise SchemaError('%s: field outside a message' % where)
        if indent % 2:
            raise SchemaError('%s: indentation must be a multiple of two' % where)
        while stack and indent < stack[-1][0]:
            stack.pop()
        if not stack:
            raise SchemaError('%s: bad indentation' % where)
        if indent > stack[-1][0]:
            if indent != stack[-1][0] + 2 or last_field is None or not last_field.is_struct:
                raise SchemaError('%s: unexpected indentation' % where)
            stack.append((indent, last_field.children))
        f = parse_field_line(tokens, where)
        stack[-1][1].append(f)
        last_field = f
    return messages


def resolve_file(messages):
    """Builds Struct objects, resolving reuse of a struct name within the file."""
    file_structs = {}  # name -> Struct, earliest definition in the file
    for msg in messages:
        local = {}

        def build(fields, where):
            seen = set()
            for f in fields:
                if f.cname in seen:
                    raise SchemaError('%s: duplicate field %s' % (f.where, f.name))
                seen.add(f.cname)
                if not f.is_struct:
                    if f.children:
                        raise SchemaError('%s: %s has children' % (f.where, f.base))
                    continue
                if f.children:
                    if f.base in local:
                        raise SchemaError('%s: struct %s defined twice in %s'
                                          % (f.where, f.base, msg.name))
                    build(f.children, f.where)
                    st = Struct(f.base, 'kc_%s_%s' % (msg.snake, snake(f.base)),
                                f.children, f.where)
                    local[f.base] = st
                    file_structs.setdefault(f.base, st)
                    msg.structs.append(st)
                    f.struct = st
                else:
                    st = local.get(f.base) or file_structs.get(f.base)
                    if st is None:
                        raise SchemaError('%s: unknown struct %s (no children and no '
                                          'earlier definition)' % (f.where, f.base))
                    f.struct = st
            tags = [f.tag for f in fields if f.tag is not None]
            if len(tags) != len(set(tags)):
                raise SchemaError('%s: duplicate tag' % where)

        build(msg.fields, msg.path)
        msg.root = Struct(msg.name, 'kc_%s' % msg.snake, msg.fields, msg.path)
        check_defaults(msg.fields)


def check_defaults(fields):
    for f in fields:
        default_literal(f)  # raises on a bad default
        check_err_markers(f)
        if f.is_struct and f.children:
            check_defaults(f.children)


def check_err_markers(f):
    """Rejects error-response markers that do not fit the field."""
    kinds = [k for k, on in (('errcode', f.errcode), ('errmsg', f.errmsg),
                             ('errversions', f.errversions), ('echo', bool(f.echo))) if on]
    if f.errvalue is not None and kinds not in ([], ['echo']):
        kinds.append('errvalue')
    if len(kinds) > 1:
        raise SchemaError('%s: %s cannot be combined' % (f.where, ' and '.join(kinds)))
    if f.errcode and (f.is_array or f.base != 'int16'):
        raise SchemaError('%s: errcode needs an int16' % f.where)
    if f.errmsg:
        if f.is_array or f.base != 'string' or f.nullable is None or \
                f.nullable.lo > f.versions.lo or \
                (f.nullable.hi is not None and (f.versions.hi is None or
                                                f.nullable.hi < f.versions.hi)):
            raise SchemaError('%s: errmsg needs a string nullable wherever it exists' % f.where)
    if f.errversions:
        names = {c.name: c for c in f.children} if f.children else \
            ({c.name: c for c in f.struct.fields} if f.struct else {})
        if not (f.is_array and f.is_struct) or any(
                n not in names or names[n].base != 'int16' or names[n].is_array
                for n in ('ApiKey', 'MinVersion', 'MaxVersion')):
            raise SchemaError('%s: errversions needs an array of ApiKey, MinVersion and '
                              'MaxVersion int16s' % f.where)
    if f.errvalue is not None:
        if f.is_struct and not f.is_array or f.base == 'uuid':
            raise SchemaError('%s: errvalue cannot be set on a %s' % (f.where, f.base))
        if f.echo and f.base not in VARLEN:
            raise SchemaError('%s: with echo, errvalue is the value of a null string' % f.where)
        value_literal(f, f.errvalue)
    if f.echo:
        if f.is_struct and not f.is_array:
            raise SchemaError('%s: a single struct cannot be echoed' % f.where)
        if f.is_array and not f.is_struct:
            raise SchemaError('%s: only arrays of structs can be echoed' % f.where)
        rngs = [r for _, r in f.echo]
        for i, a in enumerate(rngs):
            for b in rngs[i + 1:]:
                if range_and(a, b) is not None:
                    raise SchemaError('%s: echo version ranges overlap' % f.where)
    if f.unanswered is not None:
        if f.is_array or f.base not in INT_RANGES:
            raise SchemaError('%s: unanswered needs an integer field' % f.where)
        value_literal(f, f.unanswered)


def and_cond(a, b):
    """The C conjunction of two conditions (each 'true' or a chain of &&)."""
    if a == 'true':
        return b
    if b == 'true':
        return a
    return '%s && %s' % (a, b)


def emit_if(out, p, cond, stmt):
    """Appends stmt to out at indent p, under cond unless it is always true."""
    if cond == 'true':
        out.append(p + stmt)
    else:
        out.append(p + 'if (%s)' % cond)
        out.append(p + '    ' + stmt)


def range_and(a, b):
    """The intersection of two ranges, or None when empty."""
    lo = max(a.lo, b.lo)
    his = [x for x in (a.hi, b.hi) if x is not None]
    hi = min(his) if his else None
    if hi is not None and hi < lo:
        return None
    return Range(lo, hi)


def default_literal(f):
    """C literal of a scalar default, or a marker for others."""
    return value_literal(f, f.default)


def value_literal(f, d):
    """C literal of the value text d (a default or errvalue) of f, or a marker."""
    if f.is_array:
        if d not in (None, 'null'):
            raise SchemaError('%s: an array default can only be null' % f.where)
        if d == 'null' and f.nullable is None:
            raise SchemaError('%s: null default on a non-nullable field' % f.where)
        return d
    if f.is_struct:
        if d not in (None, 'null'):
            raise SchemaError('%s: a struct default can only be null' % f.where)
        if d == 'null' and f.nullable is None:
            raise SchemaError('%s: null default on a non-nullable field' % f.where)
        # A nullable struct is a pointer whose default is always NULL.
        return 'null' if f.nullable is not None else None
    if f.base in VARLEN:
        if d == 'null':
            if f.nullable is None:
                raise SchemaError('%s: null default on a non-nullable field' % f.where)
            return 'null'
        if d is None or d == '""':
            return ''
        if f.base != 'string':
            raise SchemaError('%s: bytes default can only be null' % f.where)
        if len(d) >= 2 and d[0] == '"' and d[-1] == '"':
            return d[1:-1]
        return d
    if f.base == 'bool':
        if d in (None, 'false'):
            return 'false'
        if d == 'true':
            return 'true'
        raise SchemaError('%s: bad bool default %r' % (f.where, d))
    if f.base == 'uuid':
        if d not in (None, '0', 'AAAAAAAAAAAAAAAAAAAAAA'):
            raise SchemaError('%s: only the zero uuid default is supported' % f.where)
        return None
    if f.base == 'float64':
        try:
            return repr(float(d if d is not None else 0))
        except ValueError:
            raise SchemaError('%s: bad float default %r' % (f.where, d))
    try:
        val = int(d, 0) if d is not None else 0
    except ValueError:
        raise SchemaError('%s: bad integer default %r' % (f.where, d))
    lo, hi = INT_RANGES[f.base]
    if not lo <= val <= hi:
        raise SchemaError('%s: default %d out of range for %s' % (f.where, val, f.base))
    return val


def int_c(f, val):
    if f.base == 'int64':
        if val == INT_RANGES['int64'][0]:
            return 'INT64_MIN'
        return 'INT64_C(%d)' % val
    if f.base == 'int32' and val == INT_RANGES['int32'][0]:
        return 'INT32_MIN'
    if f.base == 'uint32':
        return '%du' % val
    return '%d' % val


def c_escape(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


# ---------------------------------------------------------------- C emission

class Gen:
    def __init__(self, messages, out_name='kc_msgs', table='kc_msg'):
        self.messages = messages
        self.out_name = out_name
        self.table = table
        self.h = []
        self.c = []

    # --- types

    def field_ctype(self, f):
        if f.is_array:
            if f.is_struct:
                return 'struct {\n        %s_t *items;\n        int32_t count; /* -1 = null */\n    }' % f.struct.cname
            return SCALAR_ARRAY_TYPES[f.base]
        if f.is_struct:
            return '%s_t%s' % (f.struct.cname, ' *' if f.is_ptr else '')
        if f.base == 'string':
            return 'kc_str_t'
        if f.base in ('bytes', 'records'):
            return 'kc_bytes_t'
        return SCALARS[f.base][0]

    def elem_ctype(self, f):
        if f.is_struct:
            return '%s_t' % f.struct.cname
        if f.base == 'string':
            return 'kc_str_t'
        if f.base in ('bytes', 'records'):
            return 'kc_bytes_t'
        return SCALARS[f.base][0]

    def emit_struct_decl(self, st, doc=None):
        h = self.h
        if doc:
            h.append('/* %s */' % doc)
        h.append('struct %s {' % st.cname)
        if not st.fields:
            h.append('    char unused_; /* no fields */')
        for f in st.fields:
            notes = []
            if f.versions.lo > 0 or f.versions.hi is not None:
                notes.append('v' + (('%d+' % f.versions.lo) if f.versions.hi is None
                                    else ('%d-%d' % (f.versions.lo, f.versions.hi))))
            if f.tag is not None:
                notes.append('tag %d' % f.tag)
            if f.nullable is not None:
                notes.append('nullable' + ('' if f.nullable.lo == 0 and f.nullable.hi is None
                                           else ' v%d%s' % (f.nullable.lo,
                                                            '+' if f.nullable.hi is None
                                                            else '-%d' % f.nullable.hi)))
            if f.default is not None:
                notes.append('default ' + f.default)
            comment = ('  /* %s */' % ', '.join(notes)) if notes else ''
            h.append('    %s %s;%s' % (self.field_ctype(f), f.cname, comment))
        h.append('};')
        h.append('')

    # --- expressions

    def present(self, f):
        """C condition: the field is on the wire in version v (flag flex)."""
        c = f.versions.cond('v')
        if f.tag is not None:
            return 'flex' if c == 'true' else 'flex && %s' % c
        return c

    def nullable_expr(self, f):
        if f.nullable is None:
            return 'false'
        return f.nullable.cond('v')

    def compact_expr(self, f):
        if f.tag is not None:
            return 'true'
        return 'false' if f.nonflexible else 'flex'

    def is_default(self, f, x):
        d = default_literal(f)
        if f.is_array:
            return '%s.count < 0' % x if d == 'null' else '%s.count == 0' % x
        if f.is_struct:
            if f.is_ptr:
                if d == 'null':
                    return '%s == NULL' % x
                return '(%s == NULL || isdef_%s(%s))' % (x, f.struct.cname, x)
            return 'isdef_%s(&%s)' % (f.struct.cname, x)
        if f.base in VARLEN:
            if d == 'null':
                return '%s.len < 0' % x
            if d == '':
                return '%s.len == 0' % x
            return 'str_is(%s, %s, %d)' % (x, c_escape(d), len(d.encode()))
        if f.base == 'bool':
            return '!%s' % x if d == 'false' else '%s' % x
        if f.base == 'uuid':
            return 'uuid_is_zero(&%s)' % x
        if f.base == 'float64':
            return '%s == %s' % (x, d)
        return '%s == %s' % (x, int_c(f, d))

    def init_stmt(self, f, x, out):
        d = default_literal(f)
        if f.is_array:
            out.append('    %s.items = NULL;' % x)
            out.append('    %s.count = %s;' % (x, '-1' if d == 'null' else '0'))
        elif f.is_struct:
            if f.is_ptr:
                out.append('    %s = NULL;' % x)
            else:
                out.append('    init_%s(&%s);' % (f.struct.cname, x))
        elif f.base == 'string':
            if d == 'null':
                out.append('    %s = KC_STR_NULL;' % x)
            else:
                out.append('    %s = (kc_str_t){%s, %d};' % (x, c_escape(d), len(d.encode())))
        elif f.base in ('bytes', 'records'):
            out.append('    %s = %s;' % (x, 'KC_BYTES_NULL' if d == 'null'
                                          else '(kc_bytes_t){NULL, 0}'))
        elif f.base == 'uuid':
            out.append('    memset(&%s, 0, sizeof(%s));' % (x, x))
        elif f.base == 'bool':
            out.append('    %s = %s;' % (x, d))
        elif f.base == 'float64':
            out.append('    %s = %s;' % (x, d))
        else:
            out.append('    %s = %s;' % (x, int_c(f, d)))

    def min_size_expr(self, f, compact):
        """C expression for the fewest bytes one element of array f takes."""
        if f.is_struct:
            return 'minsz_%s(v, flex)' % f.struct.cname
        if f.base in VARLEN:
            return '(size_t)(%s ? 1 : %d)' % (compact, 2 if f.base == 'string' else 4)
        return '%d' % SCALARS[f.base][2]

    # --- decode

    def dec_scalar(self, base, r, compact, nullable):
        if base == 'string':
            return 'kc_read_str_utf8(%s, %s, %s, arena)' % (r, compact, nullable)
        if base in ('bytes', 'records'):
            return 'kc_read_bytes(%s, %s, %s)' % (r, compact, nullable)
        return 'kc_read_%s(%s)' % (SCALARS[base][1], r)

    def dec_field(self, f, x, r, out, ind):
        compact = self.compact_expr(f)
        nullable = self.nullable_expr(f)
        p = ' ' * ind
        if f.is_array:
            out.append(p + '{')
            out.append(p + '    int32_t n = kc_read_array_len(%s, %s, %s, %s);'
                       % (r, compact, nullable, self.min_size_expr(f, compact)))
            out.append(p + '    if (%s->err)' % r)
            out.append(p + '        return KC_EINVAL;')
            out.append(p + '    %s.count = n;' % x)
            out.append(p + '    %s.items = NULL;' % x)
            out.append(p + '    if (n > 0) {')
            out.append(p + '        %s.items = kc_arena_alloc(arena, (size_t)n * sizeof(*%s.items));'
                       % (x, x))
            out.append(p + '        for (int32_t i = 0; i < n; i++) {')
            if f.is_struct:
                out.append(p + '            if (dec_%s(%s, v, flex, arena, &%s.items[i]))'
                           % (f.struct.cname, r, x))
                out.append(p + '                return KC_EINVAL;')
            else:
                out.append(p + '            %s.items[i] = %s;'
                           % (x, self.dec_scalar(f.base, r, compact, 'false')))
            out.append(p + '        }')
            out.append(p + '    }')
            out.append(p + '}')
        elif f.is_struct:
            cn = f.struct.cname
            if f.is_ptr:
                out.append(p + '{')
                if nullable != 'false':
                    # The presence marker is an int8 (-1 = null), but a uvarint
                    # (0 = null) inside a tagged field, as Kafka writes it.
                    if f.tag is not None:
                        rd = '(kc_read_uvarint(%s) == 0 ? -1 : 1)' % r
                    else:
                        rd = 'kc_read_int8(%s)' % r
                    out.append(p + '    int8_t present = 1;')
                    if nullable == 'true':
                        out.append(p + '    present = %s;' % rd)
                    else:
                        out.append(p + '    if (%s)' % nullable)
                        out.append(p + '        present = %s;' % rd)
                    out.append(p + '    if (%s->err)' % r)
                    out.append(p + '        return KC_EINVAL;')
                    out.append(p + '    if (present < 0) {')
                    out.append(p + '        %s = NULL;' % x)
                    out.append(p + '    } else {')
                else:
                    out.append(p + '    {')
                out.append(p + '        %s = kc_arena_alloc(arena, sizeof(*%s));' % (x, x))
                out.append(p + '        if (dec_%s(%s, v, flex, arena, %s))' % (cn, r, x))
                out.append(p + '            return KC_EINVAL;')
                out.append(p + '    }')
                out.append(p + '}')
            else:
                out.append(p + 'if (dec_%s(%s, v, flex, arena, &%s))' % (cn, r, x))
                out.append(p + '    return KC_EINVAL;')
        else:
            out.append(p + '%s = %s;' % (x, self.dec_scalar(f.base, r, compact, nullable)))

    # --- encode

    def enc_scalar_stmts(self, base, x, compact, nullable, out, p):
        if base == 'string':
            out.append(p + 'if ((%s.len < 0 && !(%s)) || %s.len > INT16_MAX)' % (x, nullable, x))
            out.append(p + '    return KC_EINVAL;')
            out.append(p + 'kc_write_str(b, %s, %s);' % (x, compact))
        elif base in ('bytes', 'records'):
            out.append(p + 'if (%s.len < 0 && !(%s))' % (x, nullable))
            out.append(p + '    return KC_EINVAL;')
            out.append(p + 'kc_write_bytes(b, %s, %s);' % (x, compact))
        else:
            out.append(p + 'kc_write_%s(b, %s);' % (SCALARS[base][1], x))

    def enc_field(self, f, x, out, ind):
        compact = self.compact_expr(f)
        nullable = self.nullable_expr(f)
        p = ' ' * ind
        if f.is_array:
            out.append(p + 'if (%s.count < 0 && !(%s))' % (x, nullable))
            out.append(p + '    return KC_EINVAL;')
            out.append(p + 'kc_write_array_len(b, %s.count, %s);' % (x, compact))
            out.append(p + 'for (int32_t i = 0; i < %s.count; i++) {' % x)
            if f.is_struct:
                out.append(p + '    int rc = enc_%s(b, v, flex, &%s.items[i]);'
                           % (f.struct.cname, x))
                out.append(p + '    if (rc)')
                out.append(p + '        return rc;')
            else:
                self.enc_scalar_stmts(f.base, '%s.items[i]' % x, compact, 'false', out, p + '    ')
            out.append(p + '}')
        elif f.is_struct:
            cn = f.struct.cname
            if f.is_ptr:
                out.append(p + '{')
                # Inside a tagged field the marker is a uvarint (0 = null).
                wnull = 'kc_write_uvarint(b, 0)' if f.tag is not None else 'kc_write_int8(b, -1)'
                wpres = 'kc_write_uvarint(b, 1)' if f.tag is not None else 'kc_write_int8(b, 1)'
                out.append(p + '    if (%s == NULL) {' % x)
                out.append(p + '        if (!(%s))' % nullable)
                out.append(p + '            return KC_EINVAL;')
                out.append(p + '        %s;' % wnull)
                out.append(p + '    } else {')
                if nullable != 'false':
                    if nullable == 'true':
                        out.append(p + '        %s;' % wpres)
                    else:
                        out.append(p + '        if (%s)' % nullable)
                        out.append(p + '            %s;' % wpres)
                out.append(p + '        int rc = enc_%s(b, v, flex, %s);' % (cn, x))
                out.append(p + '        if (rc)')
                out.append(p + '            return rc;')
                out.append(p + '    }')
                out.append(p + '}')
            else:
                out.append(p + '{')
                out.append(p + '    int rc = enc_%s(b, v, flex, &%s);' % (cn, x))
                out.append(p + '    if (rc)')
                out.append(p + '        return rc;')
                out.append(p + '}')
        else:
            self.enc_scalar_stmts(f.base, x, compact, nullable, out, p)

    # --- sample values

    def fill_field(self, f, x, out, ind):
        p = ' ' * ind
        nullable = self.nullable_expr(f)
        if f.is_array:
            out.append(p + '{')
            out.append(p + '    uint32_t sa = next_seed(seed);')
            if nullable != 'false':
                out.append(p + '    if ((%s) && sa %% 5 == 0) {' % nullable)
                out.append(p + '        %s.items = NULL;' % x)
                out.append(p + '        %s.count = -1;' % x)
                out.append(p + '    } else {')
            else:
                out.append(p + '    {')
            out.append(p + '        int32_t n = (int32_t)(1 + sa % 2);')
            out.append(p + '        %s.count = n;' % x)
            out.append(p + '        %s.items = kc_arena_alloc(arena, (size_t)n * sizeof(*%s.items));'
                       % (x, x))
            out.append(p + '        for (int32_t i = 0; i < n; i++) {')
            if f.is_struct:
                out.append(p + '            init_%s(&%s.items[i]);' % (f.struct.cname, x))
                out.append(p + '            fill_%s(&%s.items[i], v, flex, arena, seed);'
                           % (f.struct.cname, x))
            else:
                self.fill_scalar(f.base, None, '%s.items[i]' % x, 'false', out,
                                 p + '            ')
            out.append(p + '        }')
            out.append(p + '    }')
            out.append(p + '}')
        elif f.is_struct:
            cn = f.struct.cname
            if f.is_ptr:
                out.append(p + '{')
                out.append(p + '    uint32_t sp = next_seed(seed);')
                out.append(p + '    if ((%s) && sp %% 3 == 0) {' % nullable)
                out.append(p + '        %s = NULL;' % x)
                out.append(p + '    } else {')
                out.append(p + '        %s = kc_arena_alloc(arena, sizeof(*%s));' % (x, x))
                out.append(p + '        init_%s(%s);' % (cn, x))
                out.append(p + '        fill_%s(%s, v, flex, arena, seed);' % (cn, x))
                out.append(p + '    }')
                out.append(p + '}')
            else:
                out.append(p + 'fill_%s(&%s, v, flex, arena, seed);' % (cn, x))
        else:
            self.fill_scalar(f.base, f, x, nullable, out, p)

    def fill_scalar(self, base, f, x, nullable, out, p):
        if base in VARLEN:
            out.append(p + '{')
            out.append(p + '    uint32_t s = next_seed(seed);')
            if nullable != 'false':
                out.append(p + '    if ((%s) && s %% 4 == 0) {' % nullable)
                out.append(p + '        %s.ptr = NULL;' % x)
                out.append(p + '        %s.len = -1;' % x)
                out.append(p + '    } else {')
            else:
                out.append(p + '    {')
            if base == 'string':
                out.append(p + '        %s = sample_str(arena, s);' % x)
            else:
                out.append(p + '        %s = sample_bytes(arena, s);' % x)
            out.append(p + '    }')
            out.append(p + '}')
            return
        if base == 'bool':
            d = default_literal(f) if f else 'false'
            out.append(p + '%s = %s;' % (x, 'true' if d == 'false' else 'false'))
            return
        if base == 'uuid':
            out.append(p + '%s = sample_uuid(next_seed(seed));' % x)
            return
        if base == 'float64':
            d = default_literal(f) if f else '0.0'
            out.append(p + '%s = sample_float(next_seed(seed), %s);' % (x, d))
            return
        d = default_literal(f) if f else 0
        hi = INT_RANGES[base][1]
        out.append(p + '%s = (%s)sample_int(next_seed(seed), %s, %d, %s);'
                   % (x, SCALARS[base][0], int_c_plain(base, d), min(hi, 1000) - 1,
                      'true' if hi > (1 << 31) else 'false'))

    # --- per struct functions

    def emit_struct_funcs(self, st):
        c = self.c
        cn = st.cname
        fields = st.fields
        normal = [f for f in fields if f.tag is None]
        tagged = sorted([f for f in fields if f.tag is not None], key=lambda f: f.tag)

        # init
        c.append('static void init_%s(%s_t *m)' % (cn, cn))
        c.append('{')
        if not fields:
            c.append('    m->unused_ = 0;')
        for f in fields:
            self.init_stmt(f, 'm->' + f.cname, c)
        c.append('}')
        c.append('')

        # is-default
        c.append('KC_UNUSED static bool isdef_%s(const %s_t *m)' % (cn, cn))
        c.append('{')
        if not fields:
            c.append('    (void)m;')
            c.append('    return true;')
        else:
            conds = [self.is_default(f, 'm->' + f.cname) for f in fields]
            c.append('    return ' + ' &&\n           '.join('(%s)' % x for x in conds) + ';')
        c.append('}')
        c.append('')

        # min size of one encoding (used to bound array counts)
        c.append('KC_UNUSED static size_t minsz_%s(int16_t v, bool flex)' % cn)
        c.append('{')
        c.append('    size_t n = flex ? 1 : 0;')
        for f in normal:
            cond = self.present(f)
            if f.is_array or f.base in VARLEN:
                if f.is_array:
                    size = '(%s ? 1 : 4)' % self.compact_expr(f)
                else:
                    size = '(%s ? 1 : %d)' % (self.compact_expr(f), 2 if f.base == 'string' else 4)
            elif f.is_struct:
                if f.is_ptr:
                    size = '(%s ? 1 : minsz_%s(v, flex))' % (self.nullable_expr(f), f.struct.cname)
                else:
                    size = 'minsz_%s(v, flex)' % f.struct.cname
            else:
                size = '%d' % SCALARS[f.base][2]
            if cond == 'true':
                c.append('    n += (size_t)%s;' % size)
            else:
                c.append('    if (%s)' % cond)
                c.append('        n += (size_t)%s;' % size)
        c.append('    (void)v;')
        c.append('    return n ? n : 1;')
        c.append('}')
        c.append('')

        # decode
        c.append('static int dec_%s(kc_reader_t *r, int16_t v, bool flex, kc_arena_t *arena, %s_t *m)'
                 % (cn, cn))
        c.append('{')
        c.append('    init_%s(m);' % cn)
        for f in normal:
            cond = self.present(f)
            if cond == 'true':
                self.dec_field(f, 'm->' + f.cname, 'r', c, 4)
            else:
                c.append('    if (%s) {' % cond)
                self.dec_field(f, 'm->' + f.cname, 'r', c, 8)
                c.append('    }')
        c.append('    if (flex) {')
        if not tagged:
            c.append('        kc_skip_tagged_fields(r);')
        else:
            c.append('        uint32_t ntags = kc_read_uvarint(r);')
            c.append('        for (uint32_t t = 0; t < ntags && !r->err; t++) {')
            c.append('            uint32_t tag = kc_read_uvarint(r);')
            c.append('            uint32_t size = kc_read_uvarint(r);')
            c.append('            const uint8_t *p = kc_read_raw(r, size);')
            c.append('            if (r->err)')
            c.append('                return KC_EINVAL;')
            c.append('            kc_reader_t sub;')
            c.append('            kc_reader_init(&sub, p, size);')
            c.append('            switch (tag) {')
            for f in tagged:
                c.append('            case %d:' % f.tag)
                c.append('                if (%s) {' % self.present(f))
                self.dec_field(f, 'm->' + f.cname, '(&sub)', c, 20)
                c.append('                }')
                c.append('                break;')
            c.append('            default:')
            c.append('                break; /* unknown tags are skipped */')
            c.append('            }')
            c.append('            if (sub.err)')
            c.append('                return KC_EINVAL;')
            c.append('        }')
        c.append('    }')
        c.append('    (void)arena;')
        c.append('    return r->err ? KC_EINVAL : 0;')
        c.append('}')
        c.append('')

        # encode
        c.append('static int enc_%s(kc_buf_t *b, int16_t v, bool flex, const %s_t *m)' % (cn, cn))
        c.append('{')
        for f in normal:
            cond = self.present(f)
            x = 'm->' + f.cname
            if cond == 'true':
                self.enc_field(f, x, c, 4)
            else:
                c.append('    if (%s) {' % cond)
                self.enc_field(f, x, c, 8)
                if not f.ignorable:
                    c.append('    } else if (!(%s)) {' % self.is_default(f, x))
                    c.append('        return KC_EINVAL;')
                c.append('    }')
        # tagged fields absent from this version
        for f in tagged:
            if not f.ignorable:
                x = 'm->' + f.cname
                c.append('    if (!(%s) && !(%s))' % (self.present(f), self.is_default(f, x)))
                c.append('        return KC_EINVAL;')
        c.append('    if (flex) {')
        if not tagged:
            c.append('        kc_write_uvarint(b, 0);')
        else:
            c.append('        uint32_t ntags = 0;')
            for f in tagged:
                x = 'm->' + f.cname
                c.append('        if (%s && !(%s))' % (self.present(f), self.is_default(f, x)))
                c.append('            ntags++;')
            c.append('        kc_write_uvarint(b, ntags);')
            for f in tagged:
                x = 'm->' + f.cname
                c.append('        if (%s && !(%s)) {' % (self.present(f), self.is_default(f, x)))
                c.append('            kc_write_uvarint(b, %d);' % f.tag)
                c.append('            size_t start = b->len;')
                self.enc_field(f, x, c, 12)
                c.append('            put_size_prefix(b, start);')
                c.append('        }')
        c.append('    }')
        c.append('    return 0;')
        c.append('}')
        c.append('')

        # sample
        c.append('static void fill_%s(%s_t *m, int16_t v, bool flex, kc_arena_t *arena, uint32_t *seed)'
                 % (cn, cn))
        c.append('{')
        for f in fields:
            cond = self.present(f)
            x = 'm->' + f.cname
            if cond == 'true':
                self.fill_field(f, x, c, 4)
            else:
                c.append('    if (%s) {' % cond)
                self.fill_field(f, x, c, 8)
                c.append('    }')
        c.append('    (void)m;')
        c.append('    (void)v;')
        c.append('    (void)flex;')
        c.append('    (void)arena;')
        c.append('    (void)seed;')
        c.append('}')
        c.append('')

        # error codes: every ErrorCode field on the wire in v, depth first
        # (and AddPartitionsToTxn's PartitionErrorCode, which Kafka's
        # errorCounts() counts too)
        c.append('static void errs_%s(const %s_t *m, int16_t v, bool flex, kc_error_visit_fn fn, void *arg)'
                 % (cn, cn))
        c.append('{')
        for f in fields:
            cond = self.present(f)
            x = 'm->' + f.cname
            if f.is_struct and f.is_array:
                c.append('    if (%s)' % cond)
                c.append('        for (int32_t i = 0; i < %s.count; i++)' % x)
                c.append('            errs_%s(&%s.items[i], v, flex, fn, arg);' % (f.struct.cname, x))
            elif f.is_struct and f.is_ptr:
                c.append('    if ((%s) && %s)' % (cond, x))
                c.append('        errs_%s(%s, v, flex, fn, arg);' % (f.struct.cname, x))
            elif f.is_struct:
                c.append('    if (%s)' % cond)
                c.append('        errs_%s(&%s, v, flex, fn, arg);' % (f.struct.cname, x))
            elif (f.name in ('ErrorCode', 'PartitionErrorCode') and f.base == 'int16'
                  and not f.is_array):
                c.append('    if (%s)' % cond)
                c.append('        fn(arg, %s);' % x)
        c.append('    (void)m;')
        c.append('    (void)v;')
        c.append('    (void)flex;')
        c.append('    (void)fn;')
        c.append('    (void)arg;')
        c.append('}')
        c.append('')

    # --- error responses

    def value_stmt(self, f, x, lit):
        """One C statement setting x (field f) to the value_literal lit."""
        if f.is_array:
            return '%s.count = -1; /* null (the only value allowed) */' % x
        if f.base == 'string':
            if lit == 'null':
                return '%s = KC_STR_NULL;' % x
            return '%s = (kc_str_t){%s, %d};' % (x, c_escape(lit), len(lit.encode()))
        if f.base in ('bytes', 'records'):
            return '%s = %s;' % (x, 'KC_BYTES_NULL' if lit == 'null' else '(kc_bytes_t){NULL, 0}')
        if f.base in ('bool', 'float64'):
            return '%s = %s;' % (x, lit)
        return '%s = %s;' % (x, int_c(f, lit))

    def err_fill(self, st, dst, src, vr, depth, out, ind):
        """Emits the statements filling struct st (at C prefix dst, e.g. "m.") of
        an error response, in versions vr. src is the request data the echo
        markers read: ('struct', Struct, prefix), ('scalar', base, expr) or None."""
        p = ' ' * ind
        for f in st.fields:
            fr = range_and(f.versions, vr)
            if fr is None or not (f.has_err_marker or self.err_subtree(f)):
                continue
            self.err_reached.add(id(f))
            x = dst + f.cname
            cond = self.present_in(f, fr, vr)
            if f.errcode:
                emit_if(out, p, cond, '%s = error_code;' % x)
            elif f.errmsg:
                emit_if(out, p, cond, '%s = msg;' % x)
            elif f.errversions:
                self.err_versions(f, x, cond, out, p)
            elif f.echo:
                for name, er in f.echo:
                    r = range_and(er, fr)
                    if r is None:
                        continue
                    full = self.present_in(f, r, vr)
                    if f.is_array:
                        self.err_echo_array(f, x, name, src, r, full, depth, out, ind)
                    else:
                        self.err_echo_scalar(f, x, name, src, full, out, p)
            elif f.errvalue is not None:
                lit = value_literal(f, f.errvalue)
                if lit == 'null':
                    cond = self.present_in(f, range_and(fr, f.nullable), vr)
                emit_if(out, p, cond, self.value_stmt(f, x, lit))
            else:
                raise SchemaError('%s: error-response markers inside %s, which the error '
                                  'response does not build (echo it, or drop them)'
                                  % (f.where, f.name))

    def present_in(self, f, rng, vr):
        """C condition: f is on the wire in a version of rng, knowing v is in vr."""
        parts = []
        if rng is None:
            return 'false'
        if rng.lo > vr.lo:
            parts.append('v >= %d' % rng.lo)
        if rng.hi is not None and (vr.hi is None or rng.hi < vr.hi):
            parts.append('v <= %d' % rng.hi)
        if f.tag is not None:
            parts.insert(0, 'flex')
        return ' && '.join(parts) if parts else 'true'

    def err_subtree(self, f):
        """True when a marker sits anywhere below struct field f."""
        if not f.is_struct:
            return False
        return any(c.has_err_marker or self.err_subtree(c) for c in f.struct.fields)

    def err_source(self, f, name, src, want_array):
        """The request field an echo marker of f names (its own name by default)."""
        if src is None or src[0] != 'struct':
            raise SchemaError('%s: echo=%s needs an echoed request struct here'
                              % (f.where, name or f.name))
        look = name or f.name
        for sf in src[1].fields:
            if sf.name == look:
                if sf.is_array != want_array:
                    raise SchemaError('%s: echo source %s is %san array'
                                      % (f.where, look, '' if sf.is_array else 'not '))
                return sf
        raise SchemaError('%s: the request has no field %s to echo' % (f.where, look))

    def err_echo_scalar(self, f, x, name, src, cond, out, p):
        compatible = {'bytes': 'records', 'records': 'bytes'}
        if src is not None and src[0] == 'scalar':
            if name is not None:
                raise SchemaError('%s: echo=%s of an array of %ss' % (f.where, name, src[1]))
            base, expr = src[1], src[2]
        else:
            sf = self.err_source(f, name, src, False)
            if sf.is_struct:
                raise SchemaError('%s: echo source %s is a struct' % (f.where, sf.name))
            base, expr = sf.base, src[2] + sf.cname
        if base != f.base and compatible.get(base) != f.base:
            raise SchemaError('%s: echo of a %s field into a %s field' % (f.where, base, f.base))
        if f.errvalue is not None:
            lit = value_literal(f, f.errvalue)
            stmt = self.value_stmt(f, x, lit)
            emit_if(out, p, cond, '%s = %s.len >= 0 ? %s : %s;'
                    % (x, expr, expr, stmt.split(' = ', 1)[1].rstrip(';')))
        else:
            emit_if(out, p, cond, '%s = %s;' % (x, expr))

    def err_echo_array(self, f, x, name, src, r, cond, depth, out, ind):
        p = ' ' * ind
        sf = self.err_source(f, name, src, True)
        n, i = 'n%d' % depth, 'i%d' % depth
        sexpr = src[2] + sf.cname
        out.append(p + ('{' if cond == 'true' else 'if (%s) {' % cond))
        out.append(p + '    int32_t %s = %s.count > 0 ? %s.count : 0;' % (n, sexpr, sexpr))
        out.append(p + '    %s.count = %s;' % (x, n))
        out.append(p + '    %s.items = %s > 0 ? kc_arena_alloc(arena, (size_t)%s * sizeof(*%s.items))'
                   % (x, n, n, x))
        out.append(p + '                 : NULL;')
        out.append(p + '    for (int32_t %s = 0; %s < %s; %s++) {' % (i, i, n, i))
        out.append(p + '        init_%s(&%s.items[%s]);' % (f.struct.cname, x, i))
        if sf.is_struct:
            child = ('struct', sf.struct, '%s.items[%s].' % (sexpr, i))
        else:
            child = ('scalar', sf.base, '%s.items[%s]' % (sexpr, i))
        self.err_fill(f.struct, '%s.items[%s].' % (x, i), child, r, depth + 1, out, ind + 8)
        out.append(p + '    }')
        out.append(p + '}')

    def err_versions(self, f, x, cond, out, p):
        api = self.err_msg.api
        rq = self.err_req
        if rq is None:
            raise SchemaError('%s: errversions needs the request of api %d' % (f.where, api))
        up = 'KC_%s' % rq.snake.upper()
        out.append(p + 'if (%s) {' % and_cond(cond, 'error_code == KC_ERR_UNSUPPORTED_VERSION'))
        out.append(p + '    %s.count = 1;' % x)
        out.append(p + '    %s.items = kc_arena_alloc(arena, sizeof(*%s.items));' % (x, x))
        out.append(p + '    init_%s(&%s.items[0]);' % (f.struct.cname, x))
        out.append(p + '    %s.items[0].api_key = %d;' % (x, api))
        out.append(p + '    %s.items[0].min_version = %s_MIN_VERSION;' % (x, up))
        out.append(p + '    %s.items[0].max_version = %s_MAX_VERSION;' % (x, up))
        out.append(p + '}')

    def err_uses(self, st, pred, seen=None):
        """True when a field of st or below satisfies pred."""
        seen = seen or set()
        if id(st) in seen:
            return False
        seen.add(id(st))
        return any(pred(f) or (f.is_struct and self.err_uses(f.struct, pred, seen))
                   for f in st.fields)

    def emit_error_response(self, m, rq):
        """errresp_kc_<response>(): builds and encodes m's error response."""
        c = self.c
        self.err_msg, self.err_req = m, rq
        unanswered = [f for f in rq.fields if f.unanswered is not None] if rq else []
        echoes = self.err_uses(m.root, lambda f: bool(f.echo))
        if (echoes or unanswered) and rq is None:
            raise SchemaError('%s: %s echoes a request that has no schema' % (m.path, m.name))
        c.append('static int errresp_kc_%s(int16_t v, const kc_reader_t *request, kc_arena_t *arena,'
                 % m.snake)
        c.append('                         int16_t error_code, kc_buf_t *out)')
        c.append('{')
        c.append('    const bool flex = %s;' % ('false' if m.flex_min is None
                                                  else 'v >= %d' % m.flex_min))
        src = None
        if echoes or unanswered:
            c.append('    kc_%s_t rq;' % rq.snake)
            c.append('    kc_%s_init(&rq);' % rq.snake)
            c.append('    if (request) {')
            c.append('        kc_reader_t r = *request;')
            c.append('        if (kc_%s_decode(&r, v, arena, &rq) != 0)' % rq.snake)
            c.append('            return KC_EINVAL;')
            c.append('    }')
            for f in unanswered:
                value = int_c(f, value_literal(f, f.unanswered))
                cond = and_cond('request', f.versions.cond('v'))
                c.append('    if (%s)' % and_cond(cond, 'rq.%s == %s' % (f.cname, value)))
                c.append('        return KC_ENOENT; /* Kafka sends no response at all */')
            src = ('struct', rq.root, 'rq.')
        else:
            c.append('    (void)request;')
        if self.err_uses(m.root, lambda f: f.errmsg):
            c.append('    const char *text = kc_error_message(error_code);')
            c.append('    const kc_str_t msg = text ? kc_str(text) : KC_STR_NULL;')
        c.append('    kc_%s_t m;' % m.snake)
        c.append('    kc_%s_init(&m);' % m.snake)
        self.err_fill(m.root, 'm.', src, m.versions, 0, c, 4)
        c.append('    (void)flex;')
        c.append('    (void)arena;')
        c.append('    return kc_%s_encode(out, v, &m);' % m.snake)
        c.append('}')
        c.append('')

    def all_fields(self, st, seen):
        if id(st) in seen:
            return
        seen.add(id(st))
        for f in st.fields:
            yield f
            if f.is_struct:
                yield from self.all_fields(f.struct, seen)

    def emit_error_responses(self):
        """The error response of every API whose response schema marks one, and
        the dispatch function over api keys."""
        self.err_reached = set()
        reqs = {m.api: m for m in self.messages if m.api is not None and m.name.endswith('Request')}
        built = []
        for m in self.messages:
            if m.api is None or not m.name.endswith('Response') or \
                    not self.err_uses(m.root, lambda f: f.errcode):
                continue
            self.emit_error_response(m, reqs.get(m.api))
            built.append(m)
        seen = set()
        for m in self.messages:
            for f in self.all_fields(m.root, seen):
                if f.has_err_marker and id(f) not in self.err_reached:
                    raise SchemaError('%s: %s: this error-response marker is never used (no '
                                      'errcode in the response, or not reached in any version)'
                                      % (f.where, f.name))
                if f.unanswered is not None and not (m.name.endswith('Request') and
                                                     f in m.root.fields and
                                                     any(b.api == m.api for b in built)):
                    raise SchemaError('%s: unanswered belongs on a top-level request field of an '
                                      'API with an error response' % f.where)
        built.sort(key=lambda m: m.api)
        c = self.c
        c.append('int %s_error_response_encode(int16_t api_key, int16_t version, '
                 'const kc_reader_t *request,' % self.table)
        c.append('                                kc_arena_t *arena, int16_t error_code, kc_buf_t *out)')
        c.append('{')
        c.append('    switch (api_key) {')
        for m in built:
            c.append('    case %d:' % m.api)
            c.append('        return errresp_kc_%s(version, request, arena, error_code, out);'
                     % m.snake)
        c.append('    default:')
        c.append('        (void)version;')
        c.append('        (void)request;')
        c.append('        (void)arena;')
        c.append('        (void)error_code;')
        c.append('        (void)out;')
        c.append('        return KC_EINVAL;')
        c.append('    }')
        c.append('}')
        c.append('')

    # --- top level

    def generate(self):
        h, c = self.h, self.c
        h.append('/* SPDX-License-Identifier: Apache-2.0 */')
        h.append('/* Kafka message structs and codecs. Generated by net/proto/gen/kcgen.py '
                 'from net/proto/schema/; do not edit. */')
        guard = self.out_name.upper() + '_H'
        h.append('#ifndef %s' % guard)
        h.append('#define %s' % guard)
        h.append('')
        h.append('#include <stdbool.h>')
        h.append('#include <stddef.h>')
        h.append('#include <stdint.h>')
        h.append('')
        h.append('#include "kc_common.h"')
        h.append('#include "wire.h"')
        h.append('')
        h.append('#ifndef KC_MSGS_COMMON_TYPES')
        h.append('#define KC_MSGS_COMMON_TYPES')
        h.append('/* Arrays of scalars not declared in wire.h (count -1 = null). */')
        for base, tname in sorted(SCALAR_ARRAY_TYPES.items(), key=lambda kv: kv[1]):
            if base in ('int32', 'string', 'records'):
                continue
            h.append('typedef struct {')
            h.append('    %s *items;' % self.elem_ctype_base(base))
            h.append('    int32_t count;')
            h.append('} %s;' % tname)
        h.append('')
        h.append('/* Called with each ErrorCode a message carries (see _visit_errors). */')
        h.append('typedef void (*kc_error_visit_fn)(void *arg, int16_t error_code);')
        h.append('')
        h.append('/* One entry per generated message, for tests and dispatch. */')
        h.append('typedef struct {')
        h.append('    const char *name;       /* "JoinGroupRequest" */')
        h.append('    int16_t api_key;        /* -1 when not an API message */')
        h.append('    int16_t record_type;    /* -1 when not a record */')
        h.append('    bool is_request;')
        h.append('    bool is_response;')
        h.append('    int16_t min_version;')
        h.append('    int16_t max_version;')
        h.append('    int16_t flexible_min;   /* INT16_MAX when never flexible */')
        h.append('    size_t size;            /* sizeof the struct */')
        h.append('    void (*init)(void *m);')
        h.append('    int (*decode)(kc_reader_t *r, int16_t version, kc_arena_t *arena, void *out);')
        h.append('    int (*encode)(kc_buf_t *out, int16_t version, const void *m);')
        h.append('    void (*fill_sample)(void *m, int16_t version, kc_arena_t *arena, uint32_t seed);')
        h.append('    void (*visit_errors)(const void *m, int16_t version, kc_error_visit_fn fn, void *arg);')
        h.append('} kc_msg_desc_t;')
        h.append('#endif')
        h.append('')

        # api / record constants
        apis, records = {}, {}
        for m in self.messages:
            if m.api is not None:
                base = re.sub(r'(Request|Response)$', '', m.name)
                key = 'KC_API_' + snake(base).upper()
                if apis.get(key, m.api) != m.api:
                    raise SchemaError('%s: %s has two api keys' % (m.path, key))
                apis[key] = m.api
            if m.record is not None:
                base = re.sub(r'(Key|Value)$', '', m.name)
                key = 'KC_RECORD_' + snake(base).upper()
                if records.get(key, m.record) != m.record:
                    raise SchemaError('%s: %s has two record types' % (m.path, key))
                records[key] = m.record
        h.append('/* API keys. */')
        for key, val in sorted(apis.items(), key=lambda kv: (kv[1], kv[0])):
            h.append('#define %s %d' % (key, val))
        h.append('')
        h.append('/* __consumer_offsets record types. */')
        for key, val in sorted(records.items(), key=lambda kv: (kv[1], kv[0])):
            h.append('#define %s %d' % (key, val))
        h.append('')

        # typedefs first, so structs can reference each other in any order
        for m in self.messages:
            for st in m.structs + [m.root]:
                h.append('typedef struct %s %s_t;' % (st.cname, st.cname))
        h.append('')

        for m in self.messages:
            up = m.snake.upper()
            h.append('/* ---- %s (%s) */' % (m.name, os.path.basename(m.path)))
            h.append('#define KC_%s_MIN_VERSION %d' % (up, m.versions.lo))
            h.append('#define KC_%s_MAX_VERSION %d' % (up, m.versions.hi))
            h.append('#define KC_%s_FLEXIBLE_MIN %s'
                     % (up, 'INT16_MAX' if m.flex_min is None else str(m.flex_min)))
            h.append('')
            for st in m.structs:
                self.emit_struct_decl(st)
            self.emit_struct_decl(m.root)
            n = m.snake
            h.append('/* Sets every field of m to its default. */')
            h.append('void kc_%s_init(kc_%s_t *m);' % (n, n))
            h.append('/* Decodes one %s body of the given version from r into out (views into')
            h[-1] = h[-1] % m.name
            h.append(' * r\'s bytes; arrays from arena). 0, KC_EINVAL on malformed or truncated')
            h.append(' * input, KC_EVERSION for a version outside the valid range. */')
            h.append('int kc_%s_decode(kc_reader_t *r, int16_t version, kc_arena_t *arena, kc_%s_t *out);'
                     % (n, n))
            h.append('/* Appends the body of m at the given version to out. KC_EINVAL when a')
            h.append(' * field the version lacks holds a non-default value (unless ignorable), a')
            h.append(' * null sits in a non-nullable field, a string is too long or an array')
            h.append(' * count is negative where null is not allowed; KC_EVERSION for a version')
            h.append(' * outside the range. On error out is left as it was: its length is')
            h.append(' * restored and the bytes it held are untouched (capacity may have grown). */')
            h.append('int kc_%s_encode(kc_buf_t *out, int16_t version, const kc_%s_t *m);' % (n, n))
            h.append('/* Tests: sets every field that exists in version to a deterministic')
            h.append(' * non-default value derived from seed (nullable ones sometimes null). */')
            h.append('void kc_%s_fill_sample(kc_%s_t *m, int16_t version, kc_arena_t *arena, uint32_t seed);'
                     % (n, n))
            h.append('/* Calls fn with every ErrorCode field m carries at version, in field')
            h.append(' * order, nested entries depth first (as Kafka\'s errorCounts() mostly does). */')
            h.append('void kc_%s_visit_errors(const kc_%s_t *m, int16_t version, kc_error_visit_fn fn, void *arg);'
                     % (n, n))
            h.append('')

        t = self.table
        h.append('/*')
        h.append(' * Appends the error response an API answers when the whole request fails')
        h.append(' * with error_code: Kafka\'s getErrorResponse, as the response schema marks it')
        h.append(' * (errcode fields take the code, errmsg fields kc_error_message(code), echo')
        h.append(' * arrays hold one item per item of the request, errvalue fields a fixed')
        h.append(' * value; every other field keeps its default). request is the request body')
        h.append(' * at version, read from a copy of the reader; NULL reads as a request with')
        h.append(' * every field at its default. Scratch arrays come from arena; the bytes')
        h.append(' * appended need neither afterwards. 0; KC_ENOENT when Kafka sends no')
        h.append(' * response (a request field marked unanswered holds that value, e.g.')
        h.append(' * Produce acks=0); KC_EINVAL for an API without an error response or a body')
        h.append(' * that does not decode at version; otherwise the response encoder\'s result')
        h.append(' * (KC_EVERSION outside its range). On error out is left as it was.')
        h.append(' */')
        h.append('int %s_error_response_encode(int16_t api_key, int16_t version, '
                 'const kc_reader_t *request,' % t)
        h.append('    kc_arena_t *arena, int16_t error_code, kc_buf_t *out);')
        h.append('')
        h.append('/* Every message of this file, in schema file order. */')
        h.append('extern const kc_msg_desc_t %s_descs[];' % t)
        h.append('extern const size_t %s_descs_count;' % t)
        h.append('')
        h.append('/* The request (or response) descriptor of an API key, or NULL. */')
        h.append('const kc_msg_desc_t *%s_desc_for_api(int16_t api_key, bool response);' % t)
        h.append('')
        h.append('#endif')

        c.append('/* SPDX-License-Identifier: Apache-2.0 */')
        c.append('/* Kafka message codecs. Generated by net/proto/gen/kcgen.py from '
                 'net/proto/schema/; do not edit. */')
        c.append('#include "%s.h"' % self.out_name)
        c.append('')
        c.append('#include <stdio.h>')
        c.append('#include <string.h>')
        c.append('')
        c.append('#define KC_UNUSED __attribute__((unused))')
        c.append('')
        c.append(PRELUDE)
        # forward declarations (reused structs may be referenced before definition)
        for m in self.messages:
            for st in m.structs + [m.root]:
                cn = st.cname
                c.append('static void init_%s(%s_t *m);' % (cn, cn))
                c.append('KC_UNUSED static bool isdef_%s(const %s_t *m);' % (cn, cn))
                c.append('KC_UNUSED static size_t minsz_%s(int16_t v, bool flex);' % cn)
                c.append('static int dec_%s(kc_reader_t *r, int16_t v, bool flex, kc_arena_t *arena, %s_t *m);'
                         % (cn, cn))
                c.append('static int enc_%s(kc_buf_t *b, int16_t v, bool flex, const %s_t *m);'
                         % (cn, cn))
                c.append('static void fill_%s(%s_t *m, int16_t v, bool flex, kc_arena_t *arena, uint32_t *seed);'
                         % (cn, cn))
                c.append('static void errs_%s(const %s_t *m, int16_t v, bool flex, kc_error_visit_fn fn, void *arg);'
                         % (cn, cn))
        c.append('')
        for m in self.messages:
            for st in m.structs + [m.root]:
                self.emit_struct_funcs(st)
            n = m.snake
            up = 'KC_%s' % n.upper()
            flex = 'false' if m.flex_min is None else 'version >= %d' % m.flex_min
            vcheck = 'version < %s_MIN_VERSION || version > %s_MAX_VERSION' % (up, up)
            c.append('void kc_%s_init(kc_%s_t *m)' % (n, n))
            c.append('{')
            c.append('    init_kc_%s(m);' % n)
            c.append('}')
            c.append('')
            c.append('int kc_%s_decode(kc_reader_t *r, int16_t version, kc_arena_t *arena, kc_%s_t *out)'
                     % (n, n))
            c.append('{')
            c.append('    kc_%s_init(out);' % n)
            c.append('    if (%s)' % vcheck)
            c.append('        return KC_EVERSION;')
            c.append('    if (r->err || dec_kc_%s(r, version, %s, arena, out))' % (n, flex))
            c.append('        return KC_EINVAL;')
            c.append('    return 0;')
            c.append('}')
            c.append('')
            c.append('int kc_%s_encode(kc_buf_t *out, int16_t version, const kc_%s_t *m)' % (n, n))
            c.append('{')
            c.append('    if (%s)' % vcheck)
            c.append('        return KC_EVERSION;')
            c.append('    size_t start = out->len;')
            c.append('    int rc = enc_kc_%s(out, version, %s, m);' % (n, flex))
            c.append('    if (rc)')
            c.append('        out->len = start; /* nothing of a failed encode stays */')
            c.append('    return rc;')
            c.append('}')
            c.append('')
            c.append('void kc_%s_fill_sample(kc_%s_t *m, int16_t version, kc_arena_t *arena, uint32_t seed)'
                     % (n, n))
            c.append('{')
            c.append('    uint32_t state = seed * 2654435761u + 1u;')
            c.append('    kc_%s_init(m);' % n)
            c.append('    if (%s)' % vcheck)
            c.append('        return;')
            c.append('    fill_kc_%s(m, version, %s, arena, &state);' % (n, flex))
            c.append('}')
            c.append('')
            c.append('void kc_%s_visit_errors(const kc_%s_t *m, int16_t version, kc_error_visit_fn fn, void *arg)'
                     % (n, n))
            c.append('{')
            c.append('    if (%s)' % vcheck)
            c.append('        return;')
            c.append('    errs_kc_%s(m, version, %s, fn, arg);' % (n, flex))
            c.append('}')
            c.append('')
            c.append('static void g_errs_%s(const void *m, int16_t version, kc_error_visit_fn fn, void *arg)' % n)
            c.append('{')
            c.append('    kc_%s_visit_errors(m, version, fn, arg);' % n)
            c.append('}')
            c.append('')
            c.append('static void g_init_%s(void *m)' % n)
            c.append('{')
            c.append('    kc_%s_init(m);' % n)
            c.append('}')
            c.append('')
            c.append('static int g_decode_%s(kc_reader_t *r, int16_t version, kc_arena_t *arena, void *out)' % n)
            c.append('{')
            c.append('    return kc_%s_decode(r, version, arena, out);' % n)
            c.append('}')
            c.append('')
            c.append('static int g_encode_%s(kc_buf_t *out, int16_t version, const void *m)' % n)
            c.append('{')
            c.append('    return kc_%s_encode(out, version, m);' % n)
            c.append('}')
            c.append('')
            c.append('static void g_fill_%s(void *m, int16_t version, kc_arena_t *arena, uint32_t seed)' % n)
            c.append('{')
            c.append('    kc_%s_fill_sample(m, version, arena, seed);' % n)
            c.append('}')
            c.append('')

        self.emit_error_responses()

        t = self.table
        c.append('const kc_msg_desc_t %s_descs[] = {' % t)
        for m in self.messages:
            n = m.snake
            up = 'KC_%s' % n.upper()
            c.append('    {%s, %d, %d, %s, %s, %s_MIN_VERSION, %s_MAX_VERSION, %s_FLEXIBLE_MIN,'
                     % (c_escape(m.name), -1 if m.api is None else m.api,
                        -1 if m.record is None else m.record,
                        'true' if m.name.endswith('Request') else 'false',
                        'true' if m.name.endswith('Response') else 'false', up, up, up))
            c.append('     sizeof(kc_%s_t), g_init_%s, g_decode_%s, g_encode_%s, g_fill_%s, g_errs_%s},'
                     % (n, n, n, n, n, n))
        if not self.messages:
            c.append('    {NULL, -1, -1, false, false, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL},')
        c.append('};')
        c.append('')
        c.append('const size_t %s_descs_count = %d;' % (t, len(self.messages)))
        c.append('')
        # An index by API key, so a response's descriptor is found in one
        # step on every request path.
        apis = {}
        for i, m in enumerate(self.messages):
            if m.api is None:
                continue
            kind = 1 if m.name.endswith('Response') else 0 if m.name.endswith('Request') else None
            if kind is not None:
                apis.setdefault(m.api, [-1, -1])
                if apis[m.api][kind] < 0:
                    apis[m.api][kind] = i
        nkeys = max(apis) + 1 if apis else 1
        c.append('/* [api key][0 request, 1 response]: index into %s_descs, -1 none. */' % t)
        c.append('static const int16_t %s_by_api[%d][2] = {' % (t, nkeys))
        for k in range(nkeys):
            r = apis.get(k, [-1, -1])
            c.append('    {%d, %d},' % (r[0], r[1]))
        c.append('};')
        c.append('')
        c.append('const kc_msg_desc_t *%s_desc_for_api(int16_t api_key, bool response)' % t)
        c.append('{')
        c.append('    if (api_key < 0 || api_key >= %d)' % nkeys)
        c.append('        return NULL;')
        c.append('    int16_t i = %s_by_api[api_key][response ? 1 : 0];' % t)
        c.append('    return i < 0 ? NULL : &%s_descs[i];' % t)
        c.append('}')

    def elem_ctype_base(self, base):
        if base == 'string':
            return 'kc_str_t'
        if base in ('bytes', 'records'):
            return 'kc_bytes_t'
        return SCALARS[base][0]


def int_c_plain(base, val):
    if base == 'int64':
        if val == INT_RANGES['int64'][0]:
            return 'INT64_MIN'
        return 'INT64_C(%d)' % val
    if base in ('int32',) and val == INT_RANGES['int32'][0]:
        return 'INT32_MIN'
    if base == 'uint32':
        return 'INT64_C(%d)' % val
    return '%d' % val


PRELUDE = r'''
/* Inserts the uvarint length of b[start..len) before those bytes. */
KC_UNUSED static void put_size_prefix(kc_buf_t *b, size_t start)
{
    size_t size = b->len - start;
    uint8_t tmp[5];
    size_t n = 0;
    uint32_t s = (uint32_t)size;
    while (s >= 0x80) {
        tmp[n++] = (uint8_t)(s | 0x80);
        s >>= 7;
    }
    tmp[n++] = (uint8_t)s;
    kc_buf_reserve(b, n);
    memmove(b->data + start + n, b->data + start, size);
    memcpy(b->data + start, tmp, n);
    b->len += n;
}

KC_UNUSED static bool uuid_is_zero(const kc_uuid_t *u)
{
    for (size_t i = 0; i < sizeof(u->b); i++) {
        if (u->b[i])
            return false;
    }
    return true;
}

KC_UNUSED static bool str_is(kc_str_t s, const char *lit, int32_t len)
{
    return s.len == len && (len == 0 || memcmp(s.ptr, lit, (size_t)len) == 0);
}

KC_UNUSED static uint32_t next_seed(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

/* A value in [1, lim + 1] (plus 2^33 when big) that differs from dflt. */
KC_UNUSED static int64_t sample_int(uint32_t s, int64_t dflt, uint32_t lim, bool big)
{
    int64_t x = 1 + (int64_t)(s % lim);
    if (big)
        x += INT64_C(1) << 33; /* exercise the high bytes */
    if (x == dflt)
        x++;
    return x;
}

KC_UNUSED static double sample_float(uint32_t s, double dflt)
{
    double x = 0.5 + (double)(s % 1000);
    return x == dflt ? x + 1.0 : x;
}

KC_UNUSED static kc_uuid_t sample_uuid(uint32_t s)
{
    kc_uuid_t u;
    for (size_t i = 0; i < sizeof(u.b); i++)
        u.b[i] = (uint8_t)(s + 17u * (uint32_t)i + 1u);
    return u;
}

KC_UNUSED static kc_str_t sample_str(kc_arena_t *arena, uint32_t s)
{
    char *p = kc_arena_alloc(arena, 16);
    int n = snprintf(p, 16, "s%u", (unsigned)(s % 100000u));
    return (kc_str_t){p, n};
}

KC_UNUSED static kc_bytes_t sample_bytes(kc_arena_t *arena, uint32_t s)
{
    int32_t n = (int32_t)(1 + s % 7);
    uint8_t *p = kc_arena_alloc(arena, (size_t)n);
    for (int32_t i = 0; i < n; i++)
        p[i] = (uint8_t)(s >> (i % 4 * 8));
    return (kc_bytes_t){p, n};
}
'''


def schema_files(schema_dir):
    return sorted(os.path.join(schema_dir, f) for f in os.listdir(schema_dir)
                  if f.endswith('.schema'))


def load(schema_dir):
    messages = []
    names = {}
    for path in schema_files(schema_dir):
        msgs = parse_file(path)
        resolve_file(msgs)
        for m in msgs:
            if m.name in SKIPPED_MESSAGES:
                continue
            if m.name in names:
                raise SchemaError('%s: message %s already defined in %s'
                                  % (path, m.name, names[m.name]))
            names[m.name] = path
            messages.append(m)
    return messages


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--schema-dir', required=True)
    ap.add_argument('--out-dir')
    ap.add_argument('--depfile')
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--out-name', default='kc_msgs', help='output file base name')
    ap.add_argument('--table', default='kc_msg', help='prefix of the descriptor table symbols')
    args = ap.parse_args()
    if args.list:
        for p in schema_files(args.schema_dir):
            print(p)
        return 0
    if not args.out_dir:
        ap.error('--out-dir is required')
    try:
        gen = Gen(load(args.schema_dir), args.out_name, args.table)
        gen.generate()
    except SchemaError as e:
        print('kcgen: %s' % e, file=sys.stderr)
        return 1
    hpath = os.path.join(args.out_dir, args.out_name + '.h')
    cpath = os.path.join(args.out_dir, args.out_name + '.c')
    # Always rewrite so the build system sees fresh outputs.
    with open(hpath, 'w', encoding='utf-8') as fh:
        fh.write('\n'.join(gen.h) + '\n')
    with open(cpath, 'w', encoding='utf-8') as fh:
        fh.write('\n'.join(gen.c) + '\n')
    if args.depfile:
        deps = [os.path.abspath(__file__), os.path.abspath(args.schema_dir)]
        deps += [os.path.abspath(p) for p in schema_files(args.schema_dir)]
        with open(args.depfile, 'w', encoding='utf-8') as fh:
            fh.write('%s: %s\n' % (hpath.replace(' ', '\\ '),
                                   ' '.join(d.replace(' ', '\\ ') for d in deps)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
