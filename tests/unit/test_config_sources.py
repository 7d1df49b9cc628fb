"""Settings read from the Spark session conf (a catalog's ``spark.hmscatalog.*`` keys and Hive's
``hive.exec.*``), and the parsers every reader shares."""

from __future__ import annotations

from typing import Any

import pytest

from hmscatalog import config
from hmscatalog.errors import DynamicPartitionError, InvalidSetting
from hmscatalog.partitions.types import parse_hive_type
from hmscatalog.projection import InvalidProjection, parse_projection
from hmscatalog.sources.discovery import is_enabled
from hmscatalog.write.rules import DynamicPartitionSettings

PYTHON_TYPES = {"boolean": bool, "count": int, "seconds": float, "duration": float, "choice": str,
                "text": str}


def test_every_default_is_of_its_kind() -> None:
    for setting in config.SETTINGS.values():
        if setting.kind == "glob":
            assert setting.default is None
            continue
        assert type(setting.default) is PYTHON_TYPES[setting.kind], setting.key
        if setting.kind == "count":
            assert isinstance(setting.default, int) and setting.default >= setting.minimum
        if setting.kind == "choice":
            assert setting.default in setting.choices


def test_the_sources_and_their_keys() -> None:
    by_source: dict[str, set[str]] = {}
    for setting in config.SETTINGS.values():
        by_source.setdefault(setting.source, set()).add(setting.key)
    assert by_source["catalog"] == {f"spark.hmscatalog.{k}" for k in (
        "uri", "timeout", "pool-size", "cache-ttl", "metastore-catalog", "s3.endpoint", "s3.region",
        "s3.access-key-id", "s3.secret-access-key", "s3.session-token",
        "kerberos.principal", "kerberos.client-principal", "kerberos.keytab", "tls.enabled",
        "tls.ca-file", "redirect.iceberg", "redirect.delta", "redirect.hudi", "redirect.paimon",
            "events", "events.poll-interval", "events.catch-up")}
    assert by_source["hive"] == {"hive.exec.dynamic.partition",
                                 "hive.exec.dynamic.partition.mode",
                                 "hive.exec.max.dynamic.partitions",
                                 "hive.exec.max.dynamic.partitions.pernode"}
    assert all(k.startswith("hmscatalog.") or k in ("projection.enabled",
                                                    "partition_columns_in_data_file")
               for k in by_source["table"])


@pytest.mark.parametrize(("text", "expected"), [
    ("+5", 5), (" 12 ", 12), ("007", 7), ("1_000", None), ("5.0", None), ("+", None),
])
def test_counts_take_an_optional_plus(text: str, expected: int | None) -> None:
    assert config.parse_count(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("30", 30.0), (" 2.5 ", 2.5), (".5", 0.5), ("+1", 1.0), ("0", None), ("-1", None),
    ("1e3", None), ("inf", None), ("nan", None), ("", None), ("abc", None),
])
def test_seconds_are_positive_decimal_numbers(text: str, expected: float | None) -> None:
    assert config.parse_seconds(text) == expected


def test_choices_are_words_in_any_case() -> None:
    assert config.parse_choice(" NonStrict ", ("strict", "nonstrict")) == "nonstrict"
    assert config.parse_choice("lenient", ("strict", "nonstrict")) is None


def test_one_boolean_parser_for_every_source() -> None:
    """``yes`` is an error everywhere (discovery once read it as false), in each reader's words."""
    with pytest.raises(InvalidSetting, match="must be true or false, not 'yes'"):
        is_enabled({config.DISCOVERY_ENABLED: "yes"})
    with pytest.raises(InvalidSetting, match="must be true or false, not 'yes'"):
        config.check_properties({config.PARTITION_COLUMNS_IN_DATA_FILE: "yes"}, "Table db.t")
    with pytest.raises(InvalidProjection, match="needs to be true or false, got 'yes'"):
        parse_projection({"projection.enabled": "yes"}, [("dt", parse_hive_type("string"))],
                         "/t")
    with pytest.raises(DynamicPartitionError, match="must be true or false, not 'yes'"):
        DynamicPartitionSettings.from_conf({"hive.exec.dynamic.partition": "yes"}.get)


# A catalog's settings.

def test_a_catalogs_own_key_wins_and_empty_values_are_unset() -> None:
    conf = {"spark.hmscatalog.hms.timeout": "30", "spark.hmscatalog.timeout": "90",
            "spark.hmscatalog.uri": "thrift://a:9083", "spark.hmscatalog.hms.uri": ""}
    assert config.catalog_setting(conf.get, "hms", config.TIMEOUT, float) == 30.0
    assert config.catalog_setting(conf.get, "other", config.TIMEOUT, float) == 90.0
    assert config.catalog_setting(conf.get, "hms", config.URI, str) == "thrift://a:9083"
    assert config.catalog_setting({}.get, "hms", config.TIMEOUT, float) == 600.0
    assert config.catalog_setting({}.get, "hms", config.URI, str) == ""


def test_pool_size_is_a_count_of_at_least_one_defaulting_to_two() -> None:
    assert config.catalog_setting({}.get, "hms", config.POOL_SIZE, int) == 2
    conf = {"spark.hmscatalog.hms.pool-size": "8"}
    assert config.catalog_setting(conf.get, "hms", config.POOL_SIZE, int) == 8
    with pytest.raises(InvalidSetting) as refused:
        config.catalog_setting({"spark.hmscatalog.pool-size": "0"}.get, "hms", config.POOL_SIZE,
                               int)
    assert str(refused.value) == ("Spark conf: setting 'spark.hmscatalog.pool-size' must be a "
                                  "whole number of at least 1, not '0'")


def test_a_bad_timeout_names_the_key_as_set() -> None:
    with pytest.raises(InvalidSetting) as refused:
        config.catalog_setting({"spark.hmscatalog.hms.timeout": "10s"}.get, "hms",
                               config.TIMEOUT, float)
    assert str(refused.value) == ("Spark conf: setting 'spark.hmscatalog.hms.timeout' must be a "
                                  "positive number of seconds, not '10s'")


def test_storage_options_of_a_catalog() -> None:
    conf = {"spark.hmscatalog.s3.endpoint": "http://minio:9000", "spark.hmscatalog.s3.region": "",
            "spark.hmscatalog.hms.s3.region": "eu-west-1"}
    assert config.catalog_storage_options(conf.get, "hms") == {
        "s3.endpoint": "http://minio:9000", "s3.region": "eu-west-1"}
    assert config.catalog_storage_options(conf.get, "") == {"s3.endpoint": "http://minio:9000"}


def test_session_conf_accepts_known_keys_of_any_catalog() -> None:
    config.check_session_conf([
        ("spark.hmscatalog.uri", "thrift://a:9083"), ("spark.hmscatalog.hms.timeout", "30"),
        ("spark.hmscatalog.later.pool-size", "4"), ("spark.hmscatalog.s3.s3.endpoint", "x"),
        ("spark.hmscatalog.hms.s3.session-token", "t"), ("spark.hmscatalog.hms.uri", ""),
        ("spark.sql.shuffle.partitions", "4"), ("spark.hmscatalogue.uri", "x"),
        ("hive.exec.dynamic.partition.mode", "nonstrict"),
    ], ["hms"])


@pytest.mark.parametrize(("key", "known"), [
    ("spark.hmscatalog.hms.timout", "spark.hmscatalog.hms.timeout"),
    ("spark.hmscatalog.timout", "spark.hmscatalog.timeout"),
    ("spark.hmscatalog.URI", "spark.hmscatalog.uri"),
    ("Spark.HmsCatalog.uri", "spark.hmscatalog.uri"),
    ("spark.hmscatalog.s3.endpont", "spark.hmscatalog.s3.endpoint"),
    ("spark.hmscatalog.other.s3.acess-key-id", "spark.hmscatalog.other.s3.access-key-id"),
    ("spark.hmscatalog.hms.poolsize", "spark.hmscatalog.hms.pool-size"),
])
def test_session_conf_refuses_unknown_keys_naming_the_closest(key: str, known: str) -> None:
    with pytest.raises(InvalidSetting) as refused:
        config.check_session_conf([(key, "1")], ["hms"])
    assert str(refused.value) == f"Spark conf: unknown setting '{key}'; did you mean '{known}'?"


def test_session_conf_lists_the_known_keys_when_none_is_close() -> None:
    with pytest.raises(InvalidSetting) as refused:
        config.check_session_conf([("spark.hmscatalog.zzzzzzzzzz", "1")], ["hms"])
    assert str(refused.value) == (
        "Spark conf: unknown setting 'spark.hmscatalog.zzzzzzzzzz'; known: spark.hmscatalog."
        "[<catalog>.]{uri, timeout, pool-size, cache-ttl, events, events.poll-interval, "
        "events.catch-up, metastore-catalog, s3.endpoint, "
        "s3.region, s3.access-key-id, s3.secret-access-key, s3.session-token, kerberos.principal, "
        "kerberos.client-principal, kerberos.keytab, tls.enabled, tls.ca-file, redirect.iceberg, "
        "redirect.delta, redirect.hudi, redirect.paimon}")


def test_session_conf_refuses_values_of_the_wrong_kind() -> None:
    with pytest.raises(InvalidSetting, match=r"^Spark conf: setting 'spark\.hmscatalog\.other\."
                                             r"timeout' must be a positive number of seconds, "
                                             r"not 'soon'$"):
        config.check_session_conf([("spark.hmscatalog.other.timeout", "soon")], ["hms"])


class _Conf:
    def __init__(self, values: dict[str, str]) -> None:
        self.values = values

    @property
    def getAll(self) -> dict[str, str]:  # pyspark's name
        return dict(self.values)

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


class _Session:
    version = "4.3.0"

    def __init__(self, values: dict[str, str]) -> None:
        self.conf = _Conf(values)


def test_attach_checks_the_session_conf_first() -> None:
    from hmscatalog.spark.session.attach import attach

    with pytest.raises(InvalidSetting, match=r"did you mean 'spark\.hmscatalog\.hms\.uri'"):
        attach(_Session({"spark.hmscatalog.hms.url": "thrift://a:9083"}), "hms")
    with pytest.raises(InvalidSetting, match=r"'spark\.hmscatalog\.hms\.timeout' must be"):
        attach(_Session({"spark.hmscatalog.hms.timeout": "0"}), "hms", uri="thrift://a:9083")


# Hive's settings.

def test_hive_settings_plain_key_first_then_spark_hadoop() -> None:
    conf = {"spark.hadoop.hive.exec.max.dynamic.partitions": "5000",
            "hive.exec.dynamic.partition.mode": "NONSTRICT"}
    assert config.hive_setting(conf.get, config.HIVE_MAX_DYNAMIC_PARTITIONS, int) == 5000
    assert config.hive_setting(conf.get, config.HIVE_DYNAMIC_PARTITION_MODE, str) == "nonstrict"
    assert config.hive_setting({}.get, config.HIVE_DYNAMIC_PARTITION, bool) is True
    assert config.hive_setting({}.get, config.HIVE_MAX_DYNAMIC_PARTITIONS_PER_NODE, int) == 100


def test_a_bad_hive_setting_names_the_key_as_set() -> None:
    with pytest.raises(DynamicPartitionError) as refused:
        DynamicPartitionSettings.from_conf(
            {"spark.hadoop.hive.exec.max.dynamic.partitions.pernode": "-1"}.get)
    assert str(refused.value) == (
        "Spark conf: setting 'spark.hadoop.hive.exec.max.dynamic.partitions.pernode' must be a "
        "whole number of at least 1, not '-1'")
    with pytest.raises(DynamicPartitionError, match="must be strict or nonstrict, not 'lenient'"):
        DynamicPartitionSettings.from_conf({"hive.exec.dynamic.partition.mode": "lenient"}.get)


def test_a_reader_asking_for_the_wrong_python_type_is_a_bug() -> None:
    with pytest.raises(TypeError):
        config.hive_setting({}.get, config.HIVE_DYNAMIC_PARTITION_MODE, int)
    with pytest.raises(TypeError):
        config.read_count({}, config.DISCOVERY_ENABLED, "Table db.t")


SERVICE = "hive/_HOST@EXAMPLE.COM"


@pytest.mark.parametrize(("conf", "expected"), [
    ({}, None),
    ({"spark.hadoop.hive.metastore.sasl.enabled": "false",
      "hive.metastore.kerberos.principal": SERVICE}, None),
    # As Hive and Spark read them: the metastore's principal once SASL is on.
    ({"spark.hadoop.hive.metastore.sasl.enabled": "TRUE",
      "spark.hadoop.hive.metastore.kerberos.principal": SERVICE}, (SERVICE, "", "")),
    ({"hive.metastore.sasl.enabled": "true", "hive.metastore.kerberos.principal": SERVICE,
      "spark.kerberos.principal": "etl@EXAMPLE.COM", "spark.kerberos.keytab": "/k/etl"},
     (SERVICE, "etl@EXAMPLE.COM", "/k/etl")),
    # The catalog's own, shared or by name, before Hive's and Spark's.
    ({"spark.hmscatalog.kerberos.principal": "hive/a@R",
      "spark.hmscatalog.hms.kerberos.principal": "hive/b@R",
      "spark.hmscatalog.kerberos.client-principal": "me@R",
      "spark.hmscatalog.kerberos.keytab": "/k/me",
      "spark.kerberos.principal": "etl@R", "spark.kerberos.keytab": "/k/etl"},
     ("hive/b@R", "me@R", "/k/me")),
])
def test_kerberos_settings_of_a_catalog(conf: dict[str, str],
                                        expected: tuple[str, str, str] | None) -> None:
    assert config.catalog_kerberos(conf.get, "hms") == expected


@pytest.mark.parametrize(("conf", "message"), [
    ({"hive.metastore.sasl.enabled": "yes"},
     "Spark conf: setting 'hive.metastore.sasl.enabled' must be true or false, not 'yes'"),
    ({"spark.hadoop.hive.metastore.sasl.enabled": "true"},
     "Spark conf: 'spark.hadoop.hive.metastore.sasl.enabled' is true but the metastore's "
     "principal is not set: set hive.metastore.kerberos.principal (e.g. "
     "hive/_HOST@EXAMPLE.COM) or spark.hmscatalog.hms.kerberos.principal"),
    ({"spark.hmscatalog.kerberos.principal": SERVICE, "spark.kerberos.keytab": "/k/etl"},
     "Spark conf: a Kerberos keytab is set for catalog 'hms' but not the principal to log in "
     "as: set spark.hmscatalog.hms.kerberos.client-principal or spark.kerberos.principal"),
])
def test_kerberos_settings_that_cannot_work(conf: dict[str, str], message: str) -> None:
    with pytest.raises(InvalidSetting) as refused:
        config.catalog_kerberos(conf.get, "hms")
    assert str(refused.value) == message


@pytest.mark.parametrize(("conf", "expected"), [
    ({}, (False, "")),
    ({"spark.hadoop.hive.metastore.use.SSL": "true"}, (True, "")),
    ({"hive.metastore.use.SSL": "false"}, (False, "")),
    ({"spark.hmscatalog.tls.ca-file": "/ca.pem"}, (True, "/ca.pem")),
    ({"spark.hmscatalog.hms.tls.enabled": "false", "hive.metastore.use.SSL": "true"},
     (False, "")),
    ({"spark.hmscatalog.tls.enabled": "TRUE", "spark.hmscatalog.hms.tls.ca-file": "/ca.pem"},
     (True, "/ca.pem")),
])
def test_tls_settings_of_a_catalog(conf: dict[str, str], expected: tuple[bool, str]) -> None:
    assert config.catalog_tls(conf.get, "hms") == expected


def test_tls_settings_of_the_wrong_kind() -> None:
    for conf, message in (
            ({"spark.hmscatalog.tls.enabled": "on"},
             "Spark conf: setting 'spark.hmscatalog.tls.enabled' must be true or false, not "
             "'on'"),
            ({"hive.metastore.use.SSL": "yes"},
             "Spark conf: setting 'hive.metastore.use.SSL' must be true or false, not 'yes'")):
        with pytest.raises(InvalidSetting) as refused:
            config.catalog_tls(conf.get, "hms")
        assert str(refused.value) == message
