#!/usr/bin/env bash
# Regenerate the Python Thrift bindings in hmscatalog/metastore/_thrift/
# from the IDL files in this directory.
#
# Needs the Apache Thrift compiler (Debian/Ubuntu: apt-get install
# thrift-compiler; written against 0.17). Set THRIFT=/path/to/thrift to use
# a different binary. Works from any current directory.
#
# The compiler writes a full package tree (hmscatalog/__init__.py,
# hmscatalog/metastore/__init__.py, ...) derived from the `namespace py`
# lines. That tree is produced in a temporary directory and only the leaf
# packages (hive_metastore/, fb303/) are copied into the repository, so the
# hand-written package __init__ files are never touched.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "${script_dir}/.." && pwd)"
thrift_bin="${THRIFT:-thrift}"
target="${repo_root}/hmscatalog/metastore/_thrift"
gen_subdir="hmscatalog/metastore/_thrift"

if ! command -v "${thrift_bin}" >/dev/null 2>&1; then
  echo "error: thrift compiler '${thrift_bin}' not found (apt-get install thrift-compiler)" >&2
  exit 1
fi
thrift_version="$("${thrift_bin}" --version)"

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

# -r also generates the included fb303.thrift.
"${thrift_bin}" -r --gen py -out "${work}" "${script_dir}/hive_metastore.thrift"

for pkg in hive_metastore fb303; do
  if [[ ! -f "${work}/${gen_subdir}/${pkg}/__init__.py" ]]; then
    echo "error: generator did not produce ${gen_subdir}/${pkg}" >&2
    exit 1
  fi
done

# The generated command-line clients are not wanted in the package.
find "${work}/${gen_subdir}" -name '*-remote' -type f -delete

# Assemble the new _thrift/ next to the old one, then swap it in.
staging="${work}/_thrift"
mkdir -p "${staging}"
cp -R "${work}/${gen_subdir}/hive_metastore" "${staging}/"
cp -R "${work}/${gen_subdir}/fb303" "${staging}/"
cat > "${staging}/__init__.py" <<PYEOF
# Generated code -- do not edit.
#
# Python bindings for the Hive Metastore Thrift API subset described in
# thrift_idl/hive_metastore.thrift and thrift_idl/fb303.thrift, produced by
# ${thrift_version}. Regenerate with: bash thrift_idl/generate.sh
PYEOF

rm -rf "${target}"
mkdir -p "$(dirname "${target}")"
cp -R "${staging}" "${target}"
find "${target}" -name '__pycache__' -type d -prune -exec rm -rf {} +

echo "generated ${target#"${repo_root}"/} with ${thrift_version}"
