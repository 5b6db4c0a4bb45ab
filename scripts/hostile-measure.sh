#!/usr/bin/env bash
# Peak RSS and CPU of the release tools on each hostile file: imageinfo (properties), then
# thumbnail (a 256-px JPEG), one process per file and tool, at default settings.
# Usage: scripts/hostile-measure.sh DIR [IMAGEINFO THUMBNAIL]  (default: .build/release/...)
# Prints one line per file and tool: peak RSS in MiB, user+system CPU in s, exit status, and the
# JSON line's outcome (dimensions or the error kind and message).
set -uo pipefail
dir=$1
imageinfo=${2:-.build/release/imageinfo}
thumbnail=${3:-.build/release/thumbnail}
out=$(mktemp -d)
printf '%-28s %-9s %8s %7s %4s  %s\n' file tool "RSS MiB" "CPU s" exit outcome
for file in "$dir"/*; do
    name=$(basename "$file")
    for tool in imageinfo thumbnail; do
        if [ $tool = imageinfo ]; then
            cmd=("$imageinfo" "$file" --json)
        else
            cmd=("$thumbnail" "$file" --json --output "$out/t" --jobs 1)
        fi
        timeout 120 /usr/bin/time -o "$out/time" -f '%M %U %S' "${cmd[@]}" > "$out/json" 2> "$out/err"
        status=$?
        read -r kib user system < <(tail -1 "$out/time")
        outcome=$(head -c 160 "$out/json" | tr -d '\n')
        [ $status = 124 ] && outcome="(timed out after 120 s)"
        printf '%-28s %-9s %8d %7.2f %4s  %s\n' "$name" $tool $((kib / 1024)) "$(echo "$user + $system" | bc)" $status "$outcome"
    done
done
rm -rf "$out"
