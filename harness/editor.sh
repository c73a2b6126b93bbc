#!/bin/sh
# The $EDITOR of test sessions: records its arguments in $HOME/editor-args,
# then stays open like a real editor.
printf '%s\n' "$@" > "$HOME/editor-args"
exec sleep 600
