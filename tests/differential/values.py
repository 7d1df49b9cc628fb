"""Types and values for the differential harness's cases, as SQL: data values (any type, nested
ones too), partition values with their edges (NaN, subnormals, the largest decimals, every
character Hive escapes in a path), the forms a partition value takes in a PARTITION clause and in
a predicate (literals of the column's own type and of other types), and partition texts another
writer may have registered (``'7.9'`` in an INT column). Pure Python, no Spark."""

from __future__ import annotations

import random

# A type is a tuple: ("int",), ("decimal", 10, 2), ("varchar", 5), ("array", T), ("map", K, V),
# ("struct", (("x", T), ...)).
Type = tuple

PRIMITIVES: tuple[Type, ...] = (
    ("tinyint",), ("smallint",), ("int",), ("bigint",), ("float",), ("double",),
    ("decimal", 10, 2), ("decimal", 38, 6), ("decimal", 5, 0), ("string",), ("varchar", 8),
    ("char", 4), ("boolean",), ("date",), ("timestamp",), ("binary",))
# Every type Hive takes as a partition column; the first three most often (the warehouses'
# usual dt/hour/name columns), the others each about as often as one another.
PARTITION_TYPES: tuple[Type, ...] = (
    ("string",), ("string",), ("int",), ("int",), ("date",), ("date",),
    ("tinyint",), ("smallint",), ("bigint",), ("float",), ("double",), ("double",),
    ("decimal", 10, 2), ("decimal", 38, 6), ("decimal", 5, 0), ("decimal", 38, 0),
    ("decimal", 3, 3), ("char", 1), ("char", 6), ("char", 120), ("varchar", 1), ("varchar", 12),
    ("boolean",), ("timestamp",), ("timestamp",))


def sql_type(t: Type, cast: bool = False) -> str:
    """``t`` in SQL; as a CAST's target (``cast``) CHAR and VARCHAR are STRING, as Spark's
    cast takes them (it warns about them otherwise)."""
    kind = t[0]
    if kind in ("decimal",):
        return f"DECIMAL({t[1]},{t[2]})"
    if kind in ("varchar", "char"):
        return "STRING" if cast else f"{kind.upper()}({t[1]})"
    if kind == "array":
        return f"ARRAY<{sql_type(t[1], cast)}>"
    if kind == "map":
        return f"MAP<{sql_type(t[1], cast)},{sql_type(t[2], cast)}>"
    if kind == "struct":
        return "STRUCT<" + ",".join(f"{quote(n)}:{sql_type(f, cast)}" for n, f in t[1]) + ">"
    return kind.upper()


def quote(name: str) -> str:
    """A column name as Spark SQL takes it (always back-quoted: never wrong)."""
    return "`" + name.replace("`", "``") + "`"


# -- data values ---------------------------------------------------------------------------------
# Strings that stress formats: delimiters, escapes, quotes, unicode, the default partition's name.
TRICKY = ("", " ", "a,b", "tab\there", "line\nbreak", "back\\slash", "quote'd", 'dq"x', "|:",
          "\u0001ctrl\u0002", "é日本", "ß", "NA", "\\N", "null", "%2F", "a=b/c")
SIMPLE = ("x", "hello", "Zz", "42", "a b")


def string_literal(value: str) -> str:
    out = []
    for ch in value:
        if ch == "'" or ch == "\\" or not (" " <= ch <= "~"):
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "'" + "".join(out) + "'"


_INT_RANGE = {"tinyint": 7, "smallint": 15, "int": 31, "bigint": 63}


def literal(rnd: random.Random, t: Type, edgy: bool, nulls: bool = True) -> str:
    """A random value of ``t`` as a SQL expression of exactly that type."""
    if nulls and rnd.random() < 0.12:
        return f"CAST(NULL AS {sql_type(t, True)})"
    kind = t[0]
    if kind in _INT_RANGE:
        bits = _INT_RANGE[kind]
        if edgy and rnd.random() < 0.3:
            value = rnd.choice((-(2 ** bits), 2 ** bits - 1, 0, -1))
        else:
            value = rnd.randint(-100, 100)
        return f"CAST({value} AS {sql_type(t, True)})"
    if kind in ("float", "double"):
        if edgy and rnd.random() < 0.3:
            text = rnd.choice(("NaN", "Infinity", "-Infinity", "0.0", "-0.0", "1e30", "1e-30"))
        else:
            text = repr(round(rnd.uniform(-1000, 1000), 3))
        return f"CAST('{text}' AS {sql_type(t, True)})"
    if kind == "decimal":
        precision, scale = t[1], t[2]
        digits = precision - scale
        if edgy and rnd.random() < 0.3:
            whole = "9" * digits
        else:
            whole = str(rnd.randint(0, 10 ** min(digits, 6) - 1))
        frac = "".join(rnd.choice("0123456789") for _ in range(scale))
        sign = rnd.choice(("", "-"))
        return f"CAST('{sign}{whole}{'.' + frac if scale else ''}' AS {sql_type(t, True)})"
    if kind in ("string", "varchar", "char"):
        text = rnd.choice(TRICKY if edgy and rnd.random() < 0.5 else SIMPLE)
        if kind != "string":
            text = text[: t[1]]
        return f"CAST({string_literal(text)} AS {sql_type(t, True)})"
    if kind == "boolean":
        return rnd.choice(("true", "false"))
    if kind == "date":
        if edgy and rnd.random() < 0.2:
            return rnd.choice(("DATE'1969-12-31'", "DATE'2038-01-19'", "DATE'1900-03-01'"))
        return f"DATE'{rnd.randint(1990, 2030)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}'"
    if kind == "timestamp":
        micros = f".{rnd.randint(0, 999999):06d}" if rnd.random() < 0.5 else ""
        year = rnd.choice((1970, 1999, 2024, 2037)) if edgy else rnd.randint(2000, 2030)
        return (f"TIMESTAMP'{year}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d} "
                f"{rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d}"
                f"{micros}'")
    if kind == "binary":
        return "X'" + "".join(f"{rnd.randint(0, 255):02x}" for _ in range(rnd.randint(0, 4))) + "'"
    if kind == "array":
        items = [literal(rnd, t[1], edgy) for _ in range(rnd.randint(0, 3))]
        return f"CAST(array({', '.join(items)}) AS {sql_type(t, True)})"
    if kind == "map":
        keys: dict[str, None] = {}
        for _ in range(rnd.randint(0, 3)):
            keys[literal(rnd, t[1], False, nulls=False)] = None
        pairs = [f"{k}, {literal(rnd, t[2], edgy)}" for k in keys]
        return f"CAST(map({', '.join(pairs)}) AS {sql_type(t, True)})"
    if kind == "struct":
        parts = [f"{string_literal(n)}, {literal(rnd, f, edgy)}" for n, f in t[1]]
        return f"CAST(named_struct({', '.join(parts)}) AS {sql_type(t, True)})"
    raise ValueError(f"no literal for {t}")


# -- partition values ----------------------------------------------------------------------------
# A partition value is its text (None: NULL), as a CAST from STRING reads it; typed() makes it an
# expression of the column's type, constant() a PARTITION clause's constant, and
# other_literals() the same value as literals of other types.
FLOAT_EDGES = ("NaN", "Infinity", "-Infinity", "-0.0", "0.0", "1.4E-45", "3.4028235E38",
               "1.17549435E-38", "0.1", "1.0E7", "1.0E-4", "16777217")
DOUBLE_EDGES = ("NaN", "Infinity", "-Infinity", "-0.0", "0.0", "4.9E-324", "8.41E21", "1e23",
                "1.7976931348623157E308", "2.2250738585072014E-308", "0.1", "1.0E7", "1.0E-4",
                "0.001", "9007199254740993", "123456789.125")
# Every character Hive escapes in a partition directory's name, and names that look escaped.
ESCAPED = "\"#%'*/:=?\\\x7f{[]^"
STRING_EDGES = (ESCAPED, *ESCAPED, "\u0001\u001f", "\t", "a/b", "x=y", "%41", "%", "%%2",
                "", " ", " lead", "trail ", "é日本", "__HIVE_DEFAULT_PARTITION__", "null", "NaN",
                "2024-01-05", "0", "-1", "A", "a")
DATE_EDGES = ("1969-12-31", "1970-01-01", "2038-01-19", "1900-03-01", "1582-10-10",
              "1582-10-04", "0001-01-01", "9999-12-31", "2024-02-29")
TIMESTAMP_EDGES = ("1970-01-01 00:00:00", "1969-12-31 23:59:59.999999",
                   "2024-03-10 02:30:00", "2024-11-03 01:30:00", "1900-01-01 00:00:00",
                   "2024-01-05 10:00:00.123456", "2024-01-05 10:00:00.1", "2038-01-19 03:14:08",
                   "1582-10-10 12:00:00")


def _decimal_edges(precision: int, scale: int) -> tuple[str, ...]:
    whole = precision - scale
    largest = ("9" * whole or "0") + ("." + "9" * scale if scale else "")
    smallest = "0." + "0" * (scale - 1) + "1" if scale else "1"
    return (largest, "-" + largest, "0", smallest, "-" + smallest,
            "1" + ("." + "0" * scale if scale else "") if whole else "0." + "5" * scale)


def partition_text(rnd: random.Random, t: Type, edgy: bool) -> str | None:
    """A random value of partition type ``t`` as its text (None: NULL)."""
    if rnd.random() < 0.1:
        return None
    kind = t[0]
    edge = edgy and rnd.random() < 0.5
    if kind in _INT_RANGE:
        bits = _INT_RANGE[kind]
        if edge:
            return str(rnd.choice((-(2 ** bits), 2 ** bits - 1, 0, -1)))
        return str(rnd.randint(-30, 99))
    if kind in ("float", "double"):
        # Often NaN, ±Infinity and the zeros, which Spark orders and compares apart from the
        # other values, and the subnormal and the values Java's toString names unlike the
        # shortest repr (8.409999999999999E21); then the other edges.
        edges = FLOAT_EDGES if kind == "float" else DOUBLE_EDGES
        roll = rnd.random() if edgy else 1.0
        if roll < 0.45:
            return "NaN" if roll < 0.2 else rnd.choice(edges[1:8])
        if roll < 0.7:
            return rnd.choice(edges)
        value = round(rnd.uniform(-1000, 1000), rnd.choice((0, 1, 3)))
        if rnd.random() < 0.3:  # where Java's Double.toString writes an exponent
            value *= 10.0 ** rnd.choice((-9, -5, 7, 12, 19, 25))
        return repr(value)
    if kind == "decimal":
        precision, scale = t[1], t[2]
        if edge:
            return rnd.choice(_decimal_edges(precision, scale))
        whole = str(rnd.randint(0, 10 ** min(precision - scale, 4) - 1))
        frac = "".join(rnd.choice("0123456789") for _ in range(scale))
        return rnd.choice(("", "-")) + whole + ("." + frac if scale else "")
    if kind in ("string", "char", "varchar"):
        text = rnd.choice(STRING_EDGES) if edge else rnd.choice(SIMPLE)
        if kind != "string":
            longest = t[1] if t[1] < 40 else 40  # a long CHAR's value fills a few dozen
            text = text if rnd.random() < 0.5 else (text * longest)[:longest]
            text = text[: t[1]]
        return text
    if kind == "boolean":
        return rnd.choice(("true", "false"))
    if kind == "date":
        if edge:
            return rnd.choice(DATE_EDGES)
        return f"{rnd.randint(1990, 2030)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}"
    if kind == "timestamp":
        if edge:
            return rnd.choice(TIMESTAMP_EDGES)
        micros = f".{rnd.randint(0, 999999):06d}" if rnd.random() < 0.3 else ""
        return (f"{rnd.randint(2000, 2030)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d} "
                f"{rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d}"
                f"{micros}")
    raise ValueError(f"no partition value for {t}")


def typed(t: Type, text: str | None) -> str:
    """The value of ``text`` as an expression of exactly type ``t``."""
    if text is None:
        return f"CAST(NULL AS {sql_type(t, True)})"
    kind = t[0]
    if kind == "boolean":
        return text
    if kind == "date":
        return f"DATE'{text}'"
    if kind == "timestamp":
        return f"TIMESTAMP'{text}'"
    return f"CAST({string_literal(text)} AS {sql_type(t, True)})"


def _number(text: str) -> bool:
    return text.lstrip("-").replace(".", "", 1).isdigit()


def constant(rnd: random.Random, t: Type, text: str) -> str:
    """``text`` as a PARTITION clause's constant (which Spark takes as a string, then casts):
    a number, a typed literal or a string, as the type allows."""
    kind = t[0]
    if kind == "boolean":
        return text
    forms = [string_literal(text)]
    if kind in _INT_RANGE or kind == "decimal" or (kind in ("float", "double") and
                                                    _number(text)):
        forms.append(text)
    if kind == "date":
        forms.append(f"DATE'{text}'")
    if kind == "timestamp":
        forms.append(f"TIMESTAMP'{text}'")
    return rnd.choice(forms)


def other_literals(t: Type, text: str | None) -> list[str]:
    """The value of ``text`` (or one near it) as literals of types other than ``t``: what a
    predicate compares a partition column with, for Spark to coerce (``f = CAST(0.1 AS FLOAT)``,
    ``g = double('NaN')``, ``i = '7'``, ``d = TIMESTAMP'...'``)."""
    if text is None:
        return ["NULL"]
    kind = t[0]
    quoted = string_literal(text)
    if kind in _INT_RANGE:
        return [text, f"{text}L", f"{text}.5", f"{text}.0BD", quoted, f"double({quoted})",
                "1000"]
    if kind in ("float", "double"):
        out = [f"double({quoted})", f"float({quoted})", quoted, "1000", "-0.0D"]
        if _number(text) or ("E" in text.upper() and "N" not in text.upper()):
            # A number as it stands is an INT, DECIMAL or DOUBLE literal (1e23).
            out += [f"CAST({text} AS FLOAT)", f"CAST({text} AS DOUBLE)", f"{text}BD", text]
        return out
    if kind == "decimal":
        return [text, f"{text}0", f"{text}D", f"CAST({quoted} AS DECIMAL(38,10))", quoted,
                f"CAST({text.split('.')[0] or '0'} AS INT)"]
    if kind in ("string", "char", "varchar"):
        out = [quoted, string_literal(text.rstrip(" ")), string_literal(text + " "),
               f"CAST({quoted} AS VARCHAR(200))"]
        if text.lstrip("-").isdigit():
            out.append(text)
        return out
    if kind == "boolean":
        return [string_literal(text), "1" if text == "true" else "0", f"(NOT {text})"]
    if kind == "date":
        return [quoted, f"TIMESTAMP'{text} 00:00:00'", f"TIMESTAMP_NTZ'{text} 00:00:00'",
                f"date_add(DATE'{text}', 1)"]
    if kind == "timestamp":
        return [quoted, f"DATE'{text[:10]}'", f"TIMESTAMP_NTZ'{text}'",
                f"TIMESTAMP'{text}' + INTERVAL 1 SECOND"]
    raise ValueError(f"no other literals for {t}")


# Partition texts another writer (Hive, a script, a metastore client) may register and Spark's
# casts read differently: rejected under ANSI ('7.9' in an INT column), read leniently without
# it, or accepted but not written this way by Spark (' 7', '2024-1-5').
FOREIGN: dict[str, tuple[str, ...]] = {
    "int": ("7.9", " 7", "+7", "07", "1e3", "abc", "9999999999", "-0"),
    "float": ("1d", "1e400", " 1.5", "inf", "-nan", "1,5", "0x10", "1.5f"),
    "decimal": ("1.005", "1e2", "99999999999999999999999999999999999999999", " 2.5", "abc"),
    "string": ("__HIVE_DEFAULT_PARTITION__x", " padded ", "a%2Fb"),
    "boolean": ("TRUE", "yes", "1", "t", "maybe"),
    "date": ("2024-1-5", "2024-01-05 10:00:00", "20240105", "2024-02-30", "2024-01-05T00:00"),
    "timestamp": ("2024-01-05", "2024-01-05T10:00:00", "2024-01-05 10:00:00.1234567",
                  "2024-01-05 25:00:00", "1704448800"),
}
_FOREIGN_OF = {"tinyint": "int", "smallint": "int", "bigint": "int", "double": "float",
               "char": "string", "varchar": "string"}


def foreign_text(rnd: random.Random, t: Type) -> str:
    """A partition text of a column of type ``t`` that Spark would not have written."""
    texts = FOREIGN[_FOREIGN_OF.get(t[0], t[0])]
    if t[0] in ("char", "varchar"):
        return rnd.choice(("x" * (t[1] + 1), " " * t[1] + "y", *texts))
    if t[0] in _INT_RANGE:  # one past the type's largest value
        return rnd.choice((str(2 ** _INT_RANGE[t[0]]), *texts))
    if t[0] == "decimal":  # one digit more than the type holds
        return rnd.choice(("1" * (t[1] - t[2] + 1) + ".5", *texts))
    return rnd.choice(texts)
