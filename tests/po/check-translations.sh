#!/bin/sh
# check-translations.sh: keeps po/zh_CN.po complete and correct as strings
# change. It regenerates the template from po/POTFILES.in with the same
# xgettext arguments as meson's 'glib' preset (what `ninja cortado-pot` runs),
# merges it with po/zh_CN.po in a temporary folder (the tree is not touched)
# and fails on: a source with translatable strings missing from POTFILES.in,
# a msgid cut short by a format macro xgettext cannot see through, an
# untranslated or fuzzy message, or a translation msgfmt --check rejects.
#
# Usage: check-translations.sh SRCDIR XGETTEXT MSGMERGE MSGATTRIB MSGFMT
set -u

srcdir=$1
xgettext=$2
msgmerge=$3
msgattrib=$4
msgfmt=$5
lang=zh_CN

for tool in "$xgettext" "$msgmerge" "$msgattrib" "$msgfmt"; do
  if [ ! -x "$tool" ]; then
    echo "SKIP: gettext tools not found (xgettext, msgmerge, msgattrib, msgfmt)"
    exit 77
  fi
done

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$srcdir" || exit 1
status=0

# Prints the msgids of a .po or .pot file, one per line (header left out),
# each after the first source reference of its entry.
list_msgids () {
  awk '
    /^#: / { if (ref == "") ref = $2; next }
    /^msgid / { s = substr ($0, 7); inid = 1; id = substr (s, 2, length (s) - 2); next }
    /^"/ { if (inid) id = id substr ($0, 2, length ($0) - 2); next }
    /^msg/ { if (inid && id != "") print ref "\t" id; inid = 0; id = ""; ref = ""; next }
    /^$/ { ref = "" }
  ' "$1"
}

# 1. POTFILES.in lists every source with translatable strings, and only
#    files that exist. A match inside a comment does not count.
grep -v '^#' po/POTFILES.in | sed '/^[[:space:]]*$/d' > "$tmp/listed"
while read -r f; do
  [ -f "$f" ] || { echo "po/POTFILES.in names a missing file: $f"; status=1; }
done < "$tmp/listed"
n_sources=0
for f in $(grep -rlE --include='*.c' --include='*.h' \
             '(^|[^A-Za-z0-9_])(N?_|C_|NC_) ?\("|g_dn?gettext|g_dcgettext|g_dpgettext2' \
             analysis app widgets engine proto | sort); do
  if grep -E '(^|[^A-Za-z0-9_])(N?_|C_|NC_) ?\("|g_dn?gettext|g_dcgettext|g_dpgettext2' "$f" \
       | grep -qvE '^[[:space:]]*(/?\*|//)'; then
    n_sources=$((n_sources + 1))
    grep -qxF "$f" "$tmp/listed" || { echo "missing from po/POTFILES.in: $f"; status=1; }
  fi
done
for f in $(grep -rl --include='*.ui' 'translatable="yes"' app widgets data | sort); do
  n_sources=$((n_sources + 1))
  grep -qxF "$f" "$tmp/listed" || { echo "missing from po/POTFILES.in: $f"; status=1; }
done
echo "sources with translatable strings: $n_sources"
if [ "$n_sources" -lt 20 ]; then
  echo "too few sources with translatable strings: the search is broken"
  exit 1
fi

# 2. The template, as meson's glib preset makes it.
if ! "$xgettext" --package-name=cortado -f po/POTFILES.in -D . -o "$tmp/cortado.pot" \
       --from-code=UTF-8 --add-comments=TRANSLATORS \
       --keyword=_ --keyword=N_ --keyword=C_:1c,2 --keyword=NC_:1c,2 \
       --keyword=g_dcgettext:2 --keyword=g_dngettext:2,3 --keyword=g_dpgettext2:2c,3 \
       --flag=N_:1:pass-c-format --flag=C_:2:pass-c-format --flag=NC_:2:pass-c-format \
       --flag=g_dngettext:2:pass-c-format --flag=g_strdup_printf:1:c-format \
       --flag=g_string_printf:2:c-format --flag=g_string_append_printf:2:c-format \
       --flag=g_error_new:3:c-format --flag=g_set_error:4:c-format \
       --flag=g_markup_printf_escaped:1:c-format --flag=g_log:3:c-format \
       --flag=g_print:1:c-format --flag=g_printerr:1:c-format --flag=g_printf:1:c-format \
       --flag=g_fprintf:2:c-format --flag=g_sprintf:2:c-format --flag=g_snprintf:3:c-format \
       2> "$tmp/xgettext.log"; then
  cat "$tmp/xgettext.log"
  echo "xgettext failed"
  exit 1
fi

# 3. xgettext ends a string at a macro it does not know: _("%" G_GINT64_FORMAT
#    " items") becomes the msgid "%", which no translation can ever match.
#    <inttypes.h>'s PRId64/PRIu64 (and "%zu" for gsize) are understood.
list_msgids "$tmp/cortado.pot" > "$tmp/all"
n_total=$(wc -l < "$tmp/all")
echo "messages in the template: $n_total"
if [ "$n_total" -lt 100 ]; then
  echo "too few messages in the template: extraction is broken"
  exit 1
fi
grep -E '(^|[^%])(%%)*%$' "$tmp/all" > "$tmp/cut"
if [ -s "$tmp/cut" ]; then
  echo "msgids cut short by a format macro (write PRId64/PRIu64 from <inttypes.h>,"
  echo "or %zu for gsize, instead of G_G*_FORMAT inside _()):"
  sed 's/^/  /' "$tmp/cut"
  status=1
fi

# 4. Merge and look for what is missing.
if ! "$msgmerge" --quiet --no-fuzzy-matching -o "$tmp/$lang.po" "po/$lang.po" "$tmp/cortado.pot"; then
  echo "msgmerge failed"
  exit 1
fi
"$msgattrib" --untranslated --no-obsolete -o "$tmp/untranslated.po" "$tmp/$lang.po" || exit 1
"$msgattrib" --only-fuzzy --no-obsolete -o "$tmp/fuzzy.po" "$tmp/$lang.po" || exit 1
for kind in untranslated fuzzy; do
  : > "$tmp/$kind"
  [ -f "$tmp/$kind.po" ] && list_msgids "$tmp/$kind.po" > "$tmp/$kind"
  n=$(wc -l < "$tmp/$kind")
  if [ "$n" -gt 0 ]; then
    echo "$n $kind message(s) in po/$lang.po (translate them, then run msgmerge):"
    sed 's/^/  /' "$tmp/$kind"
    status=1
  fi
done

# 5. Formats, plural forms and the header, as msgfmt checks them.
if ! "$msgfmt" --check --statistics -o /dev/null "$tmp/$lang.po"; then
  echo "msgfmt --check rejects po/$lang.po"
  status=1
fi

[ "$status" -eq 0 ] && echo "po/$lang.po: all $n_total messages translated"
exit $status
