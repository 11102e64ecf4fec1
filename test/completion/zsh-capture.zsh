# Prints the words zsh's completion system offers for a command line, one per line:
#   zsh -f zsh-capture.zsh <folder for $fpath> <command line> <compinit dump file>
# Completion only runs inside the line editor, so this types the line and a TAB into an
# interactive zsh in a pseudo-terminal (zpty), where compadd reports what it is given.

if [[ $1 == --inner ]]; then
  # Sourced by that interactive zsh: load the completion system the way a user does.
  PROMPT= RPROMPT=
  unsetopt zle_bracketed_paste
  fpath=($2 $fpath)
  # The dump (made once per test run, as a user's ~/.zcompdump is made once) spares the scan of
  # every folder on $fpath that makes a first compinit slow.
  autoload -Uz compinit && compinit -u -d $3
  zstyle ':completion:*' list-grouped false
  zstyle ':completion:*' insert-tab false
  # Every word offered is printed between \x1f marks instead (the marks, as escapes here,
  # are not in the terminal's echo of this text); after the last one, \x1e and exit.
  compadd() {
    # Calls that only compute (-O, -A, -D) are part of the machinery: leave them alone.
    if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
      builtin compadd "$@"
      return
    fi
    local -a hits
    builtin compadd -A hits "$@"
    local hit
    for hit in $hits; do print -r -- $'\x1f'$hit$'\x1f'; done
  }
  __capture_done() { print -r -- $'\x1e'; exit }
  comppostfuncs=(__capture_done)
  return
fi

zmodload zsh/zpty || exit 2
zpty capture zsh -f -i
zpty -w capture "source ${(q)0:A} --inner ${(q)1} ${(q)3}"
zpty -w capture "$2"$'\t'
local out
while zpty -r capture out; do
  [[ $out == *$'\x1e'* ]] && break
  [[ $out == *$'\x1f'*$'\x1f'* ]] && print -r -- ${${out#*$'\x1f'}%%$'\x1f'*}
done
zpty -d capture
