// `orcr completion fish`: the completion table as fish functions. One
// function walks the tokens typed so far as bash's and zsh's scripts do and
// prints what may come next (a word, a tab, what it is), which fish filters
// and quotes; the command after `--` is completed as fish completes it
// anywhere. Run and loop names come from `orcr __complete`.

import { VERSION } from '../version.js';
import { completionTable, fixedWords, type Node } from './table.js';
import type { ValueKind } from '../grammar.js';

function kindWord(kind: ValueKind): string {
  const words = fixedWords(kind);
  return words ? `words:${words.join(' ')}` : (kind as string);
}

const q = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function nodeCase(n: Node): string {
  const words = n.next.map((x) => q(x.word)).join(' ');
  const next = n.next.map((x) => q(x.summary ? `${x.word}\t${x.summary}` : x.word)).join(' ');
  const flags = n.flags
    .flatMap((f) => f.spellings)
    .map(q)
    .join(' ');
  const operand = n.operands ? kindWord(n.operands.kind) : '';
  return [
    `        case ${q(n.path)}`,
    ...(words ? [`            set __orcr_words ${words}`, `            set __orcr_next ${next}`] : []),
    `            set __orcr_flags ${flags}`,
    ...(operand ? [`            set __orcr_operand ${q(operand)}`] : []),
    ...(n.operands?.many ? ['            set __orcr_many 1'] : []),
  ].join('\n');
}

function valueCases(nodes: Node[]): string[] {
  return nodes.flatMap((n) =>
    n.flags
      .filter((f) => f.value !== null)
      .map((f) => `        case ${f.spellings.map((s) => q(`${n.path} ${s}`)).join(' ')}\n            set -g __orcr_kind ${q(kindWord(f.value!))}`),
  );
}

/** What the script says of itself, and how to install it. */
const HEADER = `# orcr's completion for fish, made by \`orcr completion fish\` (orcr ${VERSION}).
# Install it:  orcr completion fish > ~/.config/fish/completions/orcr.fish`;

/** __orcr_node: the table's nodes, each with what may follow it. */
function nodeFunction(nodes: Node[]): string {
  return `# What may follow the words that lead to node $argv[1]: the next words (and, tab-separated, what each is), the flags, the operands.
function __orcr_node
    set -g __orcr_words
    set -g __orcr_next
    set -g __orcr_flags
    set -g __orcr_operand ''
    set -g __orcr_many 0
    switch "$argv[1]"
${nodes.map(nodeCase).join('\n')}
    end
end`;
}

/** __orcr_value_of: each flag that takes a value, with its kind. */
function valueOfFunction(nodes: Node[]): string {
  return `# What the value of flag $argv[2] at node $argv[1] is; empty for a flag that takes none.
function __orcr_value_of
    set -g __orcr_kind ''
    switch "$argv[1] $argv[2]"
${valueCases(nodes).join('\n')}
    end
end`;
}

/** A value of each kind: fixed words, files, folders, run or loop names. */
const VALUES_FUNCTION = `# Values of kind $argv[1] for the token $argv[2], each after $argv[3] (a "--flag=" typed with it).
function __orcr_values
    set -l kind $argv[1]
    set -l cur $argv[2]
    set -l prefix $argv[3]
    set -l bin (string replace -r -- '^~/' "$HOME/" (commandline -opc)[1])
    switch $kind
        case 'words:*'
            for w in (string split ' ' -- (string replace -- 'words:' '' $kind))
                printf '%s%s\\n' $prefix $w
            end
        case file
            for f in (__fish_complete_path $cur)
                printf '%s%s\\n' $prefix $f
            end
        case dir
            for d in (__fish_complete_directories $cur)
                printf '%s%s\\n' $prefix $d
            end
        case run
            for name in (command $bin __complete runs 2>/dev/null)
                printf '%s%s\\n' $prefix $name
            end
        case loop
            for name in (command $bin __complete loops 2>/dev/null)
                printf '%s%s\\n' $prefix $name
            end
    end
end`;

/** The tokens walked to a node, then what may stand at the cursor; registered for orcr. */
const COMPLETE_FUNCTION = `# What may stand at the cursor, given the tokens before it.
function __orcr_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l at ''
    set -l npos 0
    set -l i 2
    set -l n (count $tokens)
    while test $i -le $n
        set -l word $tokens[$i]
        if test "$word" = --
            # After --: a command and its arguments, completed as anywhere else.
            __fish_complete_subcommand --commandline $tokens[(math $i + 1)..-1] $cur
            return
        else if string match -q -- '-?*' $word
            __orcr_value_of "$at" (string replace -r -- '=.*' '' $word)
            if test -n "$__orcr_kind"; and not string match -q -- '*=*' $word
                set i (math $i + 1)
            end
        else
            __orcr_node "$at"
            if test $npos -eq 0; and contains -- $word $__orcr_words
                set at (string trim -- "$at $word")
            else
                set npos (math $npos + 1)
            end
        end
        set i (math $i + 1)
    end
    if test $n -ge 2; and string match -q -- '-?*' $tokens[-1]; and not string match -q -- '*=*' $tokens[-1]
        __orcr_value_of "$at" $tokens[-1]
        if test -n "$__orcr_kind"
            __orcr_values $__orcr_kind $cur ''
            return
        end
    end
    if string match -q -- '--*=*' $cur
        set -l flag (string replace -r -- '=.*' '' $cur)
        __orcr_value_of "$at" $flag
        if test -n "$__orcr_kind"
            __orcr_values $__orcr_kind (string replace -r -- '^[^=]*=' '' $cur) "$flag="
        end
        return
    end
    __orcr_node "$at"
    if string match -q -- '-*' $cur
        printf '%s\\n' $__orcr_flags
    else if set -q __orcr_words[1]
        if test $npos -eq 0
            printf '%s\\n' $__orcr_next
        end
    else if test -n "$__orcr_operand"; and begin; test $__orcr_many -eq 1; or test $npos -eq 0; end
        __orcr_values $__orcr_operand $cur ''
    end
end

complete -c orcr -e
complete -c orcr -f -a '(__orcr_complete)'
`;

/** The whole script: its parts in order, a blank line between each. */
export function fishScript(): string {
  const nodes = completionTable();
  return [HEADER, nodeFunction(nodes), valueOfFunction(nodes), VALUES_FUNCTION, COMPLETE_FUNCTION].join('\n\n');
}
