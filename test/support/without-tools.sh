#!/usr/bin/env bash
# Run a command as on a machine that has only Node.js and a compiler: the
# system's PostgreSQL, tmux, libfaketime, pgbouncer, the sqlite3 shell, zsh and fish are
# hidden in a private mount namespace (needs root; nothing outside it changes).
#   test/support/without-tools.sh npm test
# What the suite then does is the README's promise for a fresh machine: every
# suite runs (PostgreSQL from npm, terminals on node-pty), and only the tests
# about the hidden tools themselves skip, saying so.
set -euo pipefail
if [ "${1:-}" = "--inside" ]; then
  shift
  empty=$(mktemp -d)
  hidden=" tmux faketime pgbouncer sqlite3 psql pg_ctl postgres initdb pg_ctlcluster pg_lsclusters zsh fish "
  # Folders go whole (an empty folder bound over them); in a folder of
  # programs, a tmpfs holds links to every program there but the hidden ones.
  for d in /usr/lib/postgresql /usr/share/postgresql /usr/lib/x86_64-linux-gnu/faketime; do
    [ -d "$d" ] && mount --bind "$empty" "$d"
  done
  # ln and readlink copied out first; /usr/bin last, as mount and mktemp live there.
  bin=$(mktemp -d)
  cp /usr/bin/ln /usr/bin/readlink "$bin"
  for d in /usr/local/bin /usr/sbin /usr/bin; do
    [ -d "$d" ] || continue
    orig=$(mktemp -d)
    mount --bind "$d" "$orig"
    mount -t tmpfs tmpfs "$d"
    for f in "$orig"/* "$orig"/.[!.]*; do
      [ -e "$f" ] || [ -L "$f" ] || continue
      n=${f##*/}
      case "$hidden" in *" $n "*) continue ;; esac
      # A link keeps its own target (a relative one resolves in $d as before).
      if [ -L "$f" ]; then "$bin/ln" -s "$("$bin/readlink" "$f")" "$d/$n"; else "$bin/ln" -s "$f" "$d/$n"; fi
    done
  done
  exec "$@"
fi
if [ "$(id -u)" != 0 ]; then
  echo "without-tools.sh: needs root (it hides the tools with bind mounts in a private mount namespace)" >&2
  exit 2
fi
[ $# -gt 0 ] || { echo "usage: test/support/without-tools.sh COMMAND [ARG...]" >&2; exit 2; }
exec unshare --mount --propagation private "$0" --inside "$@"
