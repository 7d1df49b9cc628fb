from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmscatalog.errors import InvalidPartitionSpec
from hmscatalog.partitions.codec import (
    DEFAULT_PARTITION_NAME,
    escape_path_name,
    make_part_name,
    parse_part_name,
    unescape_path_name,
)


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("2024-01-05", "2024-01-05"),
        ("a/b", "a%2Fb"),
        ("100%", "100%25"),
        ("10:30:00", "10%3A30%3A00"),
        ("k=v", "k%3Dv"),
        ("it's \"q\"", "it%27s %22q%22"),
        ("#*?\\{[]^", "%23%2A%3F%5C%7B%5B%5D%5E"),
        ("\x01\x1f\x7f", "%01%1F%7F"),
        ("über São 東京", "über São 東京"),
        ("a b", "a b"),
        ("\x00", "\x00"),  # Spark leaves U+0000 alone
        ("}|<>~`!@$&()+,;", "}|<>~`!@$&()+,;"),
    ],
)
def test_escape_known_values(raw: str, escaped: str) -> None:
    assert escape_path_name(raw) == escaped
    assert unescape_path_name(escaped) == raw


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("%41", "A"),
        ("%4", "%4"),  # too short at the end
        ("a%", "a%"),
        ("%zz", "%zz"),
        ("%+1", "%+1"),  # only two hex digits decode (Hive 2.3 would decode signs)
        ("%-0", "%-0"),
        ("%2f", "/"),  # lowercase hex decodes too
        ("%%41", "%A"),
        ("%\uff11\uff10", "%\uff11\uff10"),  # only ASCII digits
        ("%\x80%41", "%\x80A"),
    ],
)
def test_unescape_of_malformed_sequences(text: str, expected: str) -> None:
    assert unescape_path_name(text) == expected


@given(st.text())
def test_escape_round_trips_any_string(text: str) -> None:
    escaped = escape_path_name(text)
    assert "/" not in escaped and "=" not in escaped
    assert unescape_path_name(escaped) == text


@given(st.text(alphabet=st.sampled_from("%0123456789abcdefABCDEF+-xyz/\u00fc"), max_size=12))
def test_unescape_of_escape_output_is_inverse(text: str) -> None:
    assert unescape_path_name(escape_path_name(text)) == text


def test_part_name_lowercases_keys_and_writes_default_partition() -> None:
    name = make_part_name(["DT", "Region"], ["2024-01-05", None])
    assert name == f"dt=2024-01-05/region={DEFAULT_PARTITION_NAME}"
    assert make_part_name(["s"], [""]) == f"s={DEFAULT_PARTITION_NAME}"
    assert parse_part_name(name) == [("dt", "2024-01-05"), ("region", DEFAULT_PARTITION_NAME)]


def test_part_name_round_trips_special_values() -> None:
    values = ["a/b=c", "x\" or \"1\"=\"1", "100%", "ü"]
    keys = [f"k{i}" for i in range(len(values))]
    assert parse_part_name(make_part_name(keys, values)) == list(zip(keys, values, strict=True))


@pytest.mark.parametrize("bad", ["novalue", "=v", "a=1/b"])
def test_parse_part_name_rejects_malformed_segments(bad: str) -> None:
    with pytest.raises(InvalidPartitionSpec, match="key=value"):
        parse_part_name(bad)


def test_make_part_name_checks_arity() -> None:
    with pytest.raises(InvalidPartitionSpec, match="2 columns"):
        make_part_name(["a", "b"], ["1"])
