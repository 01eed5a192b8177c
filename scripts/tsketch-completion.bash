# bash completion for tsketch. Installed by 'meson install' as
# share/bash-completion/completions/tsketch; or: source scripts/tsketch-completion.bash
#
# Subcommands and options are read from the installed binary ('tsketch help', 'tsketch CMD -h'),
# so the completion never lists an option that does not exist or misses a new one.

_tsketch()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion || return
    else # without the bash-completion package
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi
    local tsketch=${words[0]}
    if [ "$cword" -eq 1 ]; then
        local cmds
        cmds=$("$tsketch" help 2>/dev/null | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
        mapfile -t COMPREPLY < <(compgen -W "$cmds --version" -- "$cur")
        return
    fi
    local cmd=${words[1]}
    if [ "$cmd" = help ]; then
        [ "$cword" -eq 2 ] && mapfile -t COMPREPLY < <(compgen -W "$("$tsketch" help 2>/dev/null |
            awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')" -- "$cur")
        return
    fi
    # values of the options that take a fixed set of them
    case $prev in
    --alphabet) mapfile -t COMPREPLY < <(compgen -W "dna protein" -- "$cur"); return ;;
    --precision) mapfile -t COMPREPLY < <(compgen -W "single double" -- "$cur"); return ;;
    --metric) mapfile -t COMPREPLY < <(compgen -W "l2 cosine" -- "$cur"); return ;;
    --device) mapfile -t COMPREPLY < <(compgen -W "auto cpu cuda cuda:0 cuda:all" -- "$cur"); return ;;
    --method) mapfile -t COMPREPLY < <(compgen -W "greedy single" -- "$cur"); return ;;
    --quality | --representatives | --tables | -l | --list | -o | --output)
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        compopt -o filenames 2>/dev/null
        return ;;
    -f | --format)
        if [ "$cmd" = export ]; then mapfile -t COMPREPLY < <(compgen -W "tsv npy" -- "$cur")
        else mapfile -t COMPREPLY < <(compgen -W "tsv phylip square npy" -- "$cur"); fi
        return ;;
    -k | --tuple-len | -s | --dim | -S | --seed | -p | --threads | --window | --stride | --anchor-k | --scaled | --min-keys | \
        --top-k | -d | --max-dist | --block | -I | --id | --min-af | --title)
        return ;; # a number or a name: nothing to offer
    esac
    if [[ $cur == -* ]]; then
        local opts
        opts=$("$tsketch" "$cmd" -h 2>/dev/null | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | sed 's/^[ ,]*//' | sort -u)
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
        return
    fi
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    compopt -o filenames 2>/dev/null
}
complete -F _tsketch tsketch
