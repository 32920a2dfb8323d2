// `orcr completion zsh`: the completion table as a zsh completion function.
// __orcr_candidates walks the words typed so far as bash's script does and
// says what to offer (verbs with their summaries, flags, a flag's values, run
// names, files, or the command after `--`, completed as zsh completes it
// anywhere); _orcr hands that to zsh's completion system. Run and loop names
// come from `orcr __complete`, given to compadd, which quotes them.

import { VERSION } from '../version.js';
import { completionTable, fixedWords, type Node } from './table.js';
import type { ValueKind } from '../grammar.js';

function kindWord(kind: ValueKind): string {
  const words = fixedWords(kind);
  return words ? `words:${words.join(' ')}` : (kind as string);
}

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
/** A word and its summary as _describe reads them (a colon in the word escaped). */
const described = (word: string, summary: string): string => q(summary ? `${word.replace(/:/g, '\\:')}:${summary}` : word);

function nodeCase(n: Node): string {
  const words = n.next.map((x) => q(x.word)).join(' ');
  const next = n.next.map((x) => described(x.word, x.summary)).join(' ');
  const flags = n.flags
    .flatMap((f) => f.spellings)
    .map(q)
    .join(' ');
  const operand = n.operands ? kindWord(n.operands.kind) : '';
  return `    (${q(n.path)}) __orcr_words=(${words}) __orcr_next=(${next}) __orcr_flags=(${flags}) __orcr_operand=${q(operand)} __orcr_many=${n.operands?.many ? 1 : 0} ;;`;
}

function valueCases(nodes: Node[]): string[] {
  return nodes.flatMap((n) =>
    n.flags
      .filter((f) => f.value !== null)
      .map((f) => `    (${f.spellings.map((s) => q(`${n.path} ${s}`)).join('|')}) __orcr_kind=${q(kindWord(f.value!))} ;;`),
  );
}

/** What the script says of itself, how to install it, and its registration when sourced. */
const HEADER = `#compdef orcr
# orcr's completion for zsh, made by \`orcr completion zsh\` (orcr ${VERSION}).
# Install it on fpath:  orcr completion zsh > ~/.zfunc/_orcr, with fpath=(~/.zfunc $fpath) before compinit
# in ~/.zshrc; or load it after compinit:  source <(orcr completion zsh)

(( $+functions[compdef] )) && compdef _orcr orcr`;

/** __orcr_node: the table's nodes, each with what may follow it. */
function nodeFunction(nodes: Node[]): string {
  return `# What may follow the words that lead to node $1: the next words (with their summaries), the flags, the operands.
__orcr_node() {
  __orcr_words=() __orcr_next=() __orcr_flags=() __orcr_operand='' __orcr_many=0
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

/** How the values of each kind are offered: fixed words, files, folders, run or loop names. */
const OFFER_KIND_FUNCTION = `# Offer values of kind $1: __orcr_offer says how, reply holds the words.
__orcr_offer_kind() {
  local bin=\${words[1]}
  [[ $bin == '~/'* ]] && bin=$HOME/\${bin#'~/'}
  case $1 in
    (words:*) __orcr_offer=words reply=(\${=\${1#words:}}) ;;
    (file) __orcr_offer=files ;;
    (dir) __orcr_offer=dirs ;;
    (run) __orcr_offer=words reply=(\${(f)"$("$bin" __complete runs 2>/dev/null)"}) ;;
    (loop) __orcr_offer=words reply=(\${(f)"$("$bin" __complete loops 2>/dev/null)"}) ;;
  esac
  reply=(\${reply:#})
}`;

/** The words walked to a node, then what the word under the cursor may be. */
const CANDIDATES_FUNCTION = `# What to offer for the word under the cursor (words[CURRENT]): sets __orcr_offer (described, words, files,
# dirs, command, or nothing), reply, __orcr_start (where the command after -- begins) and __orcr_prefixed
# (the word is --flag=value: offer values after the "=").
__orcr_candidates() {
  local at='' word cur=\${words[CURRENT]} prev i=2 npos=0
  __orcr_offer='' __orcr_start=0 __orcr_prefixed=0 reply=()
  while (( i < CURRENT )); do
    word=\${words[i]}
    if [[ $word == -- ]]; then
      __orcr_offer=command __orcr_start=$((i + 1))
      return
    elif [[ $word == -?* ]]; then
      __orcr_value_of "$at" "\${word%%=*}"
      [[ -n $__orcr_kind && $word != *=* ]] && (( i += 1 ))
    else
      __orcr_node "$at"
      if (( npos == 0 && \${__orcr_words[(Ie)$word]} )); then
        at=\${at:+$at }$word
      else
        (( npos += 1 ))
      fi
    fi
    (( i += 1 ))
  done
  prev=\${words[CURRENT-1]}
  if (( CURRENT > 2 )) && [[ $prev == -?* && $prev != *=* ]]; then
    __orcr_value_of "$at" "$prev"
    if [[ -n $__orcr_kind ]]; then
      __orcr_offer_kind "$__orcr_kind"
      return
    fi
  fi
  if [[ $cur == --*=* ]]; then
    __orcr_value_of "$at" "\${cur%%=*}"
    [[ -n $__orcr_kind ]] && __orcr_prefixed=1 && __orcr_offer_kind "$__orcr_kind"
    return
  fi
  __orcr_node "$at"
  if [[ $cur == -* ]]; then
    __orcr_offer=words reply=($__orcr_flags)
  elif (( $#__orcr_words )); then
    (( npos == 0 )) && __orcr_offer=described reply=($__orcr_next)
  elif [[ -n $__orcr_operand ]] && (( __orcr_many || npos == 0 )); then
    __orcr_offer_kind "$__orcr_operand"
  fi
}`;

/** _orcr: the candidates handed to zsh's completion system; run at once when autoloaded. */
const COMPLETION_FUNCTION = `_orcr() {
  local __orcr_offer __orcr_start __orcr_prefixed __orcr_kind __orcr_operand __orcr_many
  local -a reply __orcr_words __orcr_next __orcr_flags
  __orcr_candidates
  (( __orcr_prefixed )) && compset -P '*='
  case $__orcr_offer in
    (described) _describe -t orcr-words orcr reply ;;
    (words) compadd -a reply ;;
    (files) _files ;;
    (dirs) _files -/ ;;
    (command)
      words=("\${(@)words[__orcr_start,-1]}")
      (( CURRENT -= __orcr_start - 1 ))
      _normal ;;
  esac
}

# Autoloaded from fpath, this file's body runs as _orcr the first time: complete now. Sourced, it only defines.
if [[ $funcstack[1] == _orcr ]]; then
  _orcr "$@"
fi
`;

/** The whole script: its parts in order, a blank line between each. */
export function zshScript(): string {
  const nodes = completionTable();
  return [HEADER, nodeFunction(nodes), valueOfFunction(nodes), OFFER_KIND_FUNCTION, CANDIDATES_FUNCTION, COMPLETION_FUNCTION].join('\n\n');
}
