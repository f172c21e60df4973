#!/usr/bin/env bash
# The cache stand-ins' one store: $STANDIN_CACHES/<key>/<n> holds the n-th line of `path`.
set -euo pipefail
store="$STANDIN_CACHES"
mkdir -p "$store"
mapfile -t paths < <(sed '/^[[:space:]]*$/d' <<<"$CACHE_PATHS")
[[ -n "$CACHE_KEY" ]] || { echo "cache: Input required and not supplied: key" >&2; exit 1; }
[[ "$CACHE_KEY" != */* ]] || { echo "cache: a key with '/' is not kept here: $CACHE_KEY" >&2; exit 1; }
case "$1" in
  restore)
    matched=""
    if [[ -d "$store/$CACHE_KEY" ]]; then
      matched="$CACHE_KEY"
    else
      # The newest key that starts with the first restore key that matches any.
      while read -r prefix; do
        [[ -n "$prefix" && -z "$matched" ]] || continue
        for saved in "$store/$prefix"*; do
          [[ -d "$saved" && "$saved" != *.partial ]] || continue
          if [[ -z "$matched" || "$saved" -nt "$store/$matched" ]]; then matched="${saved##*/}"; fi
        done
      done <<<"${CACHE_RESTORE_KEYS:-}"
    fi
    if [[ -n "$matched" ]]; then
      for i in "${!paths[@]}"; do
        [[ -e "$store/$matched/$i" ]] || continue
        if [[ -d "$store/$matched/$i" ]]; then
          mkdir -p "${paths[$i]}"
          cp -a "$store/$matched/$i/." "${paths[$i]}/"
        else
          mkdir -p "$(dirname "${paths[$i]}")"
          cp -a "$store/$matched/$i" "${paths[$i]}"
        fi
      done
      echo "Cache restored from key: $matched"
    else
      echo "Cache not found for input keys: $CACHE_KEY"
    fi
    echo "cache-hit=$([[ "$matched" == "$CACHE_KEY" ]] && echo true || echo false)" >> "$GITHUB_OUTPUT"
    echo "cache-matched-key=$matched" >> "$GITHUB_OUTPUT"
    ;;
  save)
    if [[ -d "$store/$CACHE_KEY" ]]; then
      echo "Cache already exists: $CACHE_KEY (kept)"
      exit 0
    fi
    # Written aside and renamed: a job restoring at the same time sees all of it or none.
    mkdir "$store/$CACHE_KEY.partial"
    saved=0
    for i in "${!paths[@]}"; do
      if [[ -e "${paths[$i]}" ]]; then cp -a "${paths[$i]}" "$store/$CACHE_KEY.partial/$i"; saved=1; fi
    done
    ((saved)) || { rm -rf "$store/$CACHE_KEY.partial"; echo "cache: none of the paths exists: ${paths[*]}" >&2; exit 1; }
    mv "$store/$CACHE_KEY.partial" "$store/$CACHE_KEY"
    echo "Cache saved with key: $CACHE_KEY"
    ;;
esac
