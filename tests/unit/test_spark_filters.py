from __future__ import annotations

from collections.abc import Iterator, Sequence

from hmscatalog.expressions import Compare, In, IsNotNull, IsNull, eq
from hmscatalog.spark.read.filters import without_implied_not_null


def test_is_not_null_beside_a_comparison_is_dropped() -> None:
    conjuncts = [IsNotNull("dt"), eq("dt", "x"), IsNotNull("HR"), In("hr", (1, 2)),
                 IsNotNull("s"), IsNull("t")]
    assert without_implied_not_null(conjuncts) == [
        eq("dt", "x"), In("hr", (1, 2)), IsNotNull("s"), IsNull("t")]


def test_lone_is_not_null_is_kept() -> None:
    assert without_implied_not_null([IsNotNull("dt"), Compare("hr", ">", 1)]) == [
        IsNotNull("dt"), Compare("hr", ">", 1)]


class _JavaValues:
    """A Java array as py4j shows it: every element read is one round trip (counted)."""

    def __init__(self, items: Sequence[object]) -> None:
        self.items, self.reads = items, 0

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> object:
        self.reads += 1
        return self.items[index]

    def __iter__(self) -> Iterator[object]:
        for index in range(len(self.items)):
            yield self[index]


class _In:
    """Spark's ``sources.In`` filter, with its ``toString``."""

    def __init__(self, attribute: str, items: Sequence[object], text: str | None = None) -> None:
        self._attribute, self._values = attribute, _JavaValues(items)
        self._text = text or f"In({attribute}, [{','.join(map(str, items))}])"

    def productPrefix(self) -> str:
        return "In"

    def attribute(self) -> str:
        return self._attribute

    def values(self) -> _JavaValues:
        return self._values

    def toString(self) -> str:
        return self._text


def test_long_integer_in_lists_are_read_from_the_filter_text() -> None:
    from hmscatalog.spark.read.filters import to_predicate

    keys = list(range(-3, 1000))
    spark_filter = _In("`sk, [x`", keys)  # a name that looks like the list's start
    assert to_predicate(spark_filter) == In("sk, [x", tuple(keys))
    assert spark_filter.values().reads == 1  # the first value, for its type


def test_other_in_lists_are_read_value_by_value() -> None:
    from hmscatalog.spark.read.filters import to_predicate

    short = _In("sk", [1, 2, 3])
    assert to_predicate(short) == In("sk", (1, 2, 3)) and short.values().reads == 3
    words = [f"w{i}" for i in range(20)]
    assert to_predicate(_In("s", words)) == In("s", tuple(words))
    odd = _In("sk", list(range(20)), text="In(sk, [something else])")
    assert to_predicate(odd) == In("sk", tuple(range(20)))


def test_names_are_read_as_spark_prints_them() -> None:
    from hmscatalog.spark.read.filters import name_parts

    assert name_parts("a") == ["a"]
    assert name_parts("`a-b`") == ["a-b"]
    assert name_parts("`Part Key`") == ["Part Key"]
    assert name_parts("`column/#%'?`") == ["column/#%'?"]
    assert name_parts("`a.b`") == ["a.b"]
    assert name_parts("s.x") == ["s", "x"]
    assert name_parts("s.`x``y`.z") == ["s", "x`y", "z"]
    assert name_parts("````") == ["`"]


def test_a_filter_on_a_back_quoted_column_names_the_column() -> None:
    from hmscatalog.spark.read.filters import to_predicate

    assert to_predicate(_In("`a-b`", ["q", "r"])) == In("a-b", ("q", "r"))
    nested = to_predicate(_In("s.`x y`", [1, 2]))  # a nested field: no partition column
    assert not isinstance(nested, In)
