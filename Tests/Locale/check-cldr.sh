#!/usr/bin/env bash
# Regenerates the CLDR table with the oracle (Babel from PyPI, installed here if missing) and fails
# when it differs from the checked-in Tests/Locale/cldr-expected.tsv that the Swift tests read.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -c 'import babel' 2>/dev/null || python3 -m pip install -q babel
python3 Tests/Locale/cldr-oracle.py > /tmp/cldr-oracle.$$.tsv
if ! diff -u Tests/Locale/cldr-expected.tsv /tmp/cldr-oracle.$$.tsv; then
    echo "cldr: Tests/Locale/cldr-expected.tsv differs from what CLDR (Babel) says" >&2
    rm -f /tmp/cldr-oracle.$$.tsv; exit 1
fi
rm -f /tmp/cldr-oracle.$$.tsv
echo "cldr: $(wc -l < Tests/Locale/cldr-expected.tsv) lines match CLDR"
