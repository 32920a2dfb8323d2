// `orcr completion bash`: the completion table as a bash function. The words
// typed so far are walked to a node (skipping each flag's value, and what
// follows `--`); the word under the cursor is then a flag's value, a flag, the
// next word, or an operand. Run and loop names come from `orcr __complete`,
// each shown as %q quotes it and never passed to compgen -W, which would
// expand `$(…)` in a name. Needs bash 4 (mapfile, compopt).

import { VERSION } from '../version.js';
import { completionTable, fixedWords, type Node } from './table.js';
import type { ValueKind } from '../grammar.js';

/** A kind as the script's __orcr_value takes it. */
function kindWord(kind: ValueKind): string {
  const words = fixedWords(kind);
  return words ? `words:${words.join(' ')}` : (kind as string);
}

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

function nodeCase(n: Node): string {
  const flags = n.flags.flatMap((f) => f.spellings).join(' ');
  const operand = n.operands ? kindWord(n.operands.kind) : '';
  return `    ${q(n.path)}) __orcr_next=${q(n.next.map((x) => x.word).join(' '))} __orcr_flags=${q(flags)} __orcr_operand=${q(operand)} __orcr_many=${n.operands?.many ? 1 : 0} ;;`;
}

function valueCases(nodes: Node[]): string[] {
  return nodes.flatMap((n) =>
    n.flags.filter((f) => f.value !== null).map((f) => `    ${f.spellings.map((s) => q(`${n.path} ${s}`)).join('|')}) __orcr_kind=${q(kindWord(f.value!))} ;;`),
  );
}

/** What the script says of itself, and how to load it. */
const HEADER = `# orcr's completion for bash (4 or later), made by \`orcr completion bash\` (orcr ${VERSION}).
# Load it from ~/.bashrc:  source <(orcr completion bash)`;

/** __orcr_node: the table's nodes, each with what may follow it. */
function nodeFunction(nodes: Node[]): string {
  return `# What may follow the words that lead to node $1: the next words, the flags, what its operands are.
__orcr_node() {
  __orcr_next='' __orcr_flags='' __orcr_operand='' __orcr_many=0
  case $1 in
${nodes.map(nodeCase).join('\n')}
  esac
}`;
}

/** __orcr_value_of: each flag that takes a value, with its kind. */
function valueOfFunction(nodes: Node[]): string {
  return `# What the value of flag $2 at node $1 is; empty for a flag that takes none.
__orcr_value_of() {
  __orcr_kind=''
  case "$1 $2" in
${valueCases(nodes).join('\n')}
  esac
}`;
}

/** Run and loop names from a running supervisor, each quoted by %q. */
const NAMES_FUNCTION = `# Names of the running supervisor's runs or loops ($1) that begin with $2, quoted for the command line.
__orcr_names() {
  local bin=\${COMP_WORDS[0]} name quoted
  [[ $bin == '~/'* ]] && bin=$HOME/\${bin#'~/'}
  while IFS= read -r name; do
    printf -v quoted '%q' "$name"
    [[ $quoted == "$2"* ]] && COMPREPLY+=("$quoted")
  done < <("$bin" __complete "$1" 2>/dev/null)
}`;

/** A value of each kind: fixed words, files, folders, run or loop names. */
const VALUE_FUNCTION = `# Values of kind $1 that begin with $2.
__orcr_value() {
  case $1 in
    words:*) mapfile -t COMPREPLY < <(compgen -W "\${1#words:}" -- "$2") ;;
    file) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$2") ;;
    dir) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$2") ;;
    run) __orcr_names runs "$2" ;;
    loop) __orcr_names loops "$2" ;;
  esac
}`;

/** The completion itself: the words walked to a node, then what the word under the cursor may be; registered for orcr. */
const COMPLETION_FUNCTION = `_orcr() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev at='' word i=1 npos=0 dd=0 start=0
  local __orcr_next __orcr_flags __orcr_operand __orcr_many __orcr_kind
  COMPREPLY=()
  while (( i < COMP_CWORD )); do
    word=\${COMP_WORDS[i]}
    if (( dd )); then
      : # a word of the command after --
    elif [[ $word == -- ]]; then
      dd=1 start=$((i + 1))
    elif [[ $word == -?* ]]; then
      __orcr_value_of "$at" "\${word%%=*}"
      # Its value is the next word; bash splits --flag=value at "=" into three words.
      if [[ -n $__orcr_kind && $word != *=* ]]; then
        if [[ \${COMP_WORDS[i+1]} == = ]]; then ((i += 2)); else ((i += 1)); fi
      fi
    else
      __orcr_node "$at"
      if (( npos == 0 )) && [[ " $__orcr_next " == *" $word "* ]]; then
        at=\${at:+$at }$word
      else
        ((npos += 1))
      fi
    fi
    ((i += 1))
  done

  # After --: a command, then its arguments.
  if (( dd )); then
    if (( COMP_CWORD == start )) && [[ $cur != */* ]]; then mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u); else __orcr_value file "$cur"; fi
    return 0
  fi

  # A flag's value: after the flag, after its "=", or in one word with it.
  prev=\${COMP_WORDS[COMP_CWORD-1]}
  [[ $prev == = ]] && (( COMP_CWORD > 2 )) && prev=\${COMP_WORDS[COMP_CWORD-2]}
  [[ $cur == = ]] && cur=''
  if (( COMP_CWORD > 1 )) && [[ $prev == -?* && $prev != *=* ]]; then
    __orcr_value_of "$at" "$prev"
    if [[ -n $__orcr_kind ]]; then
      __orcr_value "$__orcr_kind" "$cur"
      return 0
    fi
  fi
  if [[ $cur == --*=* ]]; then
    __orcr_value_of "$at" "\${cur%%=*}"
    if [[ -n $__orcr_kind ]]; then
      __orcr_value "$__orcr_kind" "\${cur#*=}"
      COMPREPLY=("\${COMPREPLY[@]/#/\${cur%%=*}=}")
    fi
    return 0
  fi

  __orcr_node "$at"
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$__orcr_flags" -- "$cur")
  elif [[ -n $__orcr_next ]]; then
    (( npos == 0 )) && mapfile -t COMPREPLY < <(compgen -W "$__orcr_next" -- "$cur")
  elif [[ -n $__orcr_operand ]] && (( __orcr_many || npos == 0 )); then
    __orcr_value "$__orcr_operand" "$cur"
  fi
  return 0
}

complete -F _orcr orcr
`;

/** The whole script: its parts in order, a blank line between each. */
export function bashScript(): string {
  const nodes = completionTable();
  return [HEADER, nodeFunction(nodes), valueOfFunction(nodes), NAMES_FUNCTION, VALUE_FUNCTION, COMPLETION_FUNCTION].join('\n\n');
}
