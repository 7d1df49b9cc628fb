# Generated code -- do not edit.
#
# Python bindings for the Hive Metastore Thrift API subset described in
# thrift_idl/hive_metastore.thrift and thrift_idl/fb303.thrift, produced by
# Thrift version 0.17.0. Regenerate with: bash thrift_idl/generate.sh
