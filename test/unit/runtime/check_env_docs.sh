#!/bin/sh
# check_env_docs.sh TABLE_PROGRAM RUNTIME_MD - fails unless every variable
# the program prints (name, default) has the row "| `NAME` | `DEFAULT` |"
# (or "| `NAME` | — |" without a default) in RUNTIME_MD.
set -e
table=$("$1")
test -n "$table"
n=0
tab=$(printf '\t')
echo "$table" | {
  while IFS="$tab" read -r name dflt; do
    n=$((n + 1))
    if [ -n "$dflt" ]; then
      row="| \`$name\` | \`$dflt\` |"
    else
      row="| \`$name\` | — |"
    fi
    if ! grep -qF "$row" "$2"; then
      echo "$2 has no row starting: $row"
      exit 1
    fi
  done
  echo "$n variables documented"
}
