"""The bridge between Python and the driver's JVM, the lowest wing of :mod:`hmscatalog.spark`:
py4j plumbing (:mod:`.jvm`: Java collections, schemas, exceptions, callback proxies), the
plugin's jar and the settings that load it (:mod:`.plugin`), and the Java sources of that jar
(``java/``). It knows nothing of tables; every other wing builds on it."""
