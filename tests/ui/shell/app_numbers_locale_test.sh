#!/bin/sh
# The app formats and parses numbers the same way whatever the desktop's locale: under a German
# locale (decimal comma) an import of the reference CSV and Export all still write "p = 0.95",
# never "p = 0,95". The locale is compiled into a temporary folder (localedef); where the
# machine has no locale sources the test is skipped (exit 77).
#   app_numbers_locale_test.sh PARITYLAB_APP REFERENCE_CSV
set -u
app=$1
csv=$2
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
command -v localedef >/dev/null 2>&1 || { echo "no localedef: skipped"; exit 77; }
localedef -i de_DE -f UTF-8 "$work/de_DE.utf8" >/dev/null 2>&1 || true
[ -d "$work/de_DE.utf8" ] || { echo "cannot compile de_DE.utf8: skipped"; exit 77; }
export LOCPATH="$work" LC_ALL=de_DE.utf8 QT_QPA_PLATFORM=offscreen
[ "$(printf '%.2f' 0.5 2>/dev/null)" = "0,50" ] || [ "$(/usr/bin/printf '%.2f' 0.5)" = "0,50" ] ||
  { echo "the locale has no decimal comma here: skipped"; exit 77; }
"$app" --import "$csv" --db "$work/hardware.db" --export-all "$work/out" >"$work/log" 2>&1 ||
  { echo "the app failed:"; cat "$work/log"; exit 1; }
summary=$(ls "$work"/out/*summary*.csv 2>/dev/null | head -n 1)
[ -n "$summary" ] || { echo "no summary CSV written:"; cat "$work/log"; exit 1; }
if grep -Eq 'p = [0-9]+,[0-9]' "$summary"; then
  echo "a decimal comma in $summary:"; grep -E 'p = [0-9]+,[0-9]' "$summary"; exit 1
fi
grep -Eq 'p = [0-9<]' "$summary" || { echo "no p value in $summary:"; cat "$summary"; exit 1; }
echo "numbers written with a decimal point under de_DE.utf8"
