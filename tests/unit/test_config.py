"""hmscatalog's table properties: one parser per kind, unknown keys refused."""

from __future__ import annotations

import pytest

from hmscatalog import config
from hmscatalog.errors import InvalidSetting
from hmscatalog.partitions.types import parse_hive_type
from hmscatalog.projection import InvalidProjection
from hmscatalog.projection.config import check_projection_keys
from hmscatalog.sources.discovery import DiscoveryLimits, is_enabled


@pytest.mark.parametrize(("text", "expected"), [
    ("true", True), ("FALSE", False), (" True ", True), ("ture", None), ("yes", None),
    ("1", None), ("", None),
])
def test_booleans_are_true_or_false_only(text: str, expected: bool | None) -> None:
    assert config.parse_boolean(text) is expected


@pytest.mark.parametrize(("text", "minimum", "expected"), [
    ("10", 0, 10), (" 7 ", 1, 7), ("0", 0, 0), ("0", 1, None), ("-5", 0, None),
    ("abc", 0, None), ("1e3", 0, None), ("٣", 0, None), ("", 0, None),
])
def test_counts_are_whole_numbers_at_or_above_a_minimum(text: str, minimum: int,
                                                        expected: int | None) -> None:
    assert config.parse_count(text, minimum) == expected


def test_a_misspelt_boolean_is_an_error_not_false() -> None:
    with pytest.raises(InvalidSetting, match=r"^Table db\.t: property "
                       r"'hmscatalog\.discovery\.enabled' must be true or false, not 'ture'$"):
        is_enabled({"hmscatalog.discovery.enabled": "ture"}, "Table db.t")
    assert is_enabled({"hmscatalog.discovery.enabled": "TRUE"})
    assert not is_enabled({})


def test_discovery_limits() -> None:
    assert DiscoveryLimits.from_properties({}) == DiscoveryLimits()
    limits = DiscoveryLimits.from_properties({"hmscatalog.discovery.max-partitions": "9"})
    assert limits.max_partitions == 9
    for bad in ("abc", "-5", "0"):
        with pytest.raises(InvalidSetting, match="must be a whole number of at least 1"):
            DiscoveryLimits.from_properties({"hmscatalog.discovery.max-partitions": bad})


def test_how_long_replaced_files_are_kept() -> None:
    key = config.WRITE_KEEP_REPLACED_SECONDS
    assert config.read_count({}, key, "Table db.t") == 300
    assert config.read_count({key: "0"}, key, "Table db.t") == 0
    with pytest.raises(InvalidSetting, match=r"^Table db\.t: property 'hmscatalog\.write\."
                       r"keep-replaced-seconds' must be a whole number of at least 0, not '5m'$"):
        config.check_properties({key: "5m"}, "Table db.t")
    with pytest.raises(InvalidSetting, match=r"did you mean 'hmscatalog\.write\.keep-replaced-"):
        config.check_properties({"hmscatalog.write.keep-replaced-secs": "5"}, "Table db.t")


def test_unknown_keys_under_the_prefix_are_refused_with_a_suggestion() -> None:
    with pytest.raises(InvalidSetting, match=r"unknown property 'hmscatalog\.discovery\.enable'; "
                                             r"did you mean 'hmscatalog\.discovery\.enabled'\?"):
        config.check_properties({"hmscatalog.discovery.enable": "true"}, "Table db.t")
    with pytest.raises(InvalidSetting, match=r"unknown property 'hmscatalog\.zzz'; known: "):
        config.check_properties({"hmscatalog.zzz": "1"}, "Table db.t")
    config.check_properties({"other.key": "x", "hmscatalog.discovery.glob": "*/x"}, "t")
    with pytest.raises(InvalidSetting, match="partition_columns_in_data_file"):
        config.check_properties({"partition_columns_in_data_file": "yes"}, "Table db.t")


@pytest.mark.parametrize(("options", "properties", "message"), [
    ({"s3.regin": "x"}, True, "unknown option 's3.regin'; did you mean 's3.region'?"),
    ({"max-partitions": "5"}, True,
     "unknown option 'max-partitions'; did you mean 'hmscatalog.discovery.max-partitions'?"),
    ({"S3.Endpoint": "x"}, False, "unknown option 'S3.Endpoint'; did you mean 's3.endpoint'?"),
    ({"hmscatalog.discovery.max-partitions": "5"}, False,
     "unknown option 'hmscatalog.discovery.max-partitions'; known: s3.endpoint, s3.region, "
     "s3.access-key-id, s3.secret-access-key, s3.session-token"),
    ({"compression": "zstd"}, True,
     "unknown option 'compression'; known: s3.endpoint, s3.region, s3.access-key-id, "
     "s3.secret-access-key, s3.session-token and table properties hmscatalog.*"),
])
def test_unknown_option_keys_of_path_reads_and_writes_are_refused(
        options: dict[str, str], properties: bool, message: str) -> None:
    with pytest.raises(InvalidSetting) as refused:
        config.check_options(options, "read of /p", properties)
    assert str(refused.value) == f"read of /p: {message}"


def test_known_option_keys_pass() -> None:
    config.check_options({"s3.region": "eu", "hmscatalog.discovery.max-partitions": "5",
                          "hmscatalog.anything": "checked by check_properties"}, "p", True)
    config.check_options({"s3.endpoint": "http://x"}, "p", False)


def test_projection_keys_are_checked_even_when_projection_is_off() -> None:
    columns = [("dt", parse_hive_type("string"))]
    with pytest.raises(InvalidProjection, match=r"Unknown partition projection property "
                                                r"'projection\.enable'; did you mean"):
        check_projection_keys({"projection.enable": "true"}, columns, "db.t")
    with pytest.raises(InvalidProjection, match="non-partition column: 'x'"):
        check_projection_keys({"projection.x.type": "enum"}, columns, "db.t")
    with pytest.raises(InvalidProjection, match=r"Unknown property 'projection\.dt\.typ'"):
        check_projection_keys({"projection.dt.typ": "enum"}, columns, "db.t")
    check_projection_keys({"projection.enabled": "false", "projection.dt.type": "enum"},
                          columns, "db.t")
