"""Settings keys are looked up exactly: a key that no reader finds is refused, wherever it
would otherwise leave a setting silently at its default."""

from __future__ import annotations

import pytest

from hmscatalog import config
from hmscatalog.errors import InvalidSetting
from hmscatalog.partitions.types import parse_hive_type
from hmscatalog.projection import InvalidProjection
from hmscatalog.projection.config import check_projection_keys, parse_projection
from hmscatalog.sources.discovery import is_enabled

COLUMNS = [("dt", parse_hive_type("string"))]


@pytest.mark.parametrize(("key", "known"), [
    ("PROJECTION.ENABLED", "projection.enabled"),
    ("Partition_Columns_In_Data_File", "partition_columns_in_data_file"),
    ("HMSCATALOG.discovery.enabled", "hmscatalog.discovery.enabled"),
])
def test_a_known_key_in_another_case_is_refused_naming_the_spelling_read(
        key: str, known: str) -> None:
    with pytest.raises(InvalidSetting) as refused:
        config.check_properties({key: "true"}, "Table db.t")
    assert str(refused.value) == (
        f"Table db.t: unknown property '{key}'; did you mean '{known}'?")


def test_projection_enabled_is_in_the_table_but_its_value_is_left_to_projection() -> None:
    """Its value is judged by the projection parser, with Athena's wording."""
    assert config.SETTINGS[config.PROJECTION_ENABLED].kind == "boolean"
    config.check_properties({"projection.enabled": "yes"}, "Table db.t")


def test_every_key_hms_reads_is_in_the_table() -> None:
    from hmscatalog.projection import config as projection

    assert {projection.ENABLED, projection.MAX_PARTITIONS} <= set(config.SETTINGS)
    assert config.SETTINGS[projection.MAX_PARTITIONS].default == projection.DEFAULT_MAX_PARTITIONS


@pytest.mark.parametrize(("glob", "reason"), [
    ("{a,b", "unclosed '{' at position 7"),
    ("a}/x", "stray '}' at position 8 closes no '{'"),
    ("/", "it names no path segment below its root"),
])
def test_a_glob_that_cannot_compile_is_refused(glob: str, reason: str) -> None:
    with pytest.raises(InvalidSetting) as refused:
        config.check_properties({config.DISCOVERY_GLOB: glob}, "Table db.t", "/tmp/t")
    assert str(refused.value) == (
        f"Table db.t: property 'hmscatalog.discovery.glob' must be a glob below the table "
        f"location, not {glob!r}: invalid glob '/tmp/t/{glob}': {reason}")
    config.check_properties({config.DISCOVERY_GLOB: "dt=*/x-{1..3}.parquet"}, "t", "/tmp/t")


def test_reading_the_discovery_switch_refuses_misspelt_discovery_keys() -> None:
    """Tables made by other catalogs skipped CREATE's checks; their reads check the keys."""
    with pytest.raises(InvalidSetting) as refused:
        is_enabled({"hmscatalog.discovery.enable": "true"}, "Table db.t")
    assert str(refused.value) == ("Table db.t: unknown property 'hmscatalog.discovery.enable'; "
                                  "did you mean 'hmscatalog.discovery.enabled'?")
    with pytest.raises(InvalidSetting, match=r"did you mean 'hmscatalog\.discovery\.enabled'"):
        is_enabled({"Hmscatalog.Discovery.Enabled": "true"}, "Table db.t")
    # Keys outside discovery are not its business at read time.
    assert not is_enabled({"hmscatalog.other": "x", "team": "y"}, "Table db.t")


@pytest.mark.parametrize("key", ["projection.enable", "Projection.Enabled", "projection.enabed"])
def test_a_misspelt_projection_switch_fails_the_read(key: str) -> None:
    """Without the exact ``projection.enabled`` the table would read as not projected."""
    properties = {key: "true", "projection.dt.type": "enum", "projection.dt.values": "a"}
    with pytest.raises(InvalidProjection) as refused:
        parse_projection(properties, COLUMNS, "/t", table="db.t")
    assert str(refused.value) == (
        f"Table db.t: Unknown partition projection property '{key}'; did you mean "
        "'projection.enabled'?")


def test_projection_without_a_switch_or_switched_off_still_reads_as_not_projected() -> None:
    """A broken setup that is off (or has no switch at all) never fails reads."""
    assert parse_projection({"projection.dt.type": "nonsense", "projection.x": "1"},
                            COLUMNS, "/t") is None
    assert parse_projection({"projection.enabled": "false", "projection.enable": "true"},
                            COLUMNS, "/t") is None


def test_check_projection_keys_refuses_the_switch_in_another_case() -> None:
    with pytest.raises(InvalidProjection, match=r"'PROJECTION\.ENABLED'; did you mean"):
        check_projection_keys({"PROJECTION.ENABLED": "true"}, COLUMNS, "db.t")
    check_projection_keys({"projection.enabled": "true"}, COLUMNS, "db.t")
