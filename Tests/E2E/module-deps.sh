# module-deps.sh — sourced by setup.sh and setup-arm64.sh: which module files an initramfs needs.
# module_files KDIR MODULE...: each module's path in KDIR/modules.dep and its dependencies' (relative
# to KDIR, sorted, once each); a module that is not there (built in, or absent) is said on stderr.
module_files() {
  local kdir=$1 m n line want=""; shift
  for m in "$@"; do
    n="$(echo "$m" | tr '_' '-')"
    line="$(awk -v n="$n" -F: '{b=$1; sub(/.*\//,"",b); sub(/\.ko(\.[a-z]+)?$/,"",b); gsub("_","-",b); if (b==n) {print; exit}}' "$kdir/modules.dep")"
    [ -n "$line" ] || { echo "module $m not in modules.dep (built in?)" >&2; continue; }
    want="$want ${line%%:*} ${line#*:}"
  done
  echo $want | tr ' ' '\n' | sed '/^$/d' | sort -u
}
