#!/usr/bin/env bash
# Artifacts from the stand-ins' store ($STANDIN_RUN/artifacts/<name>/), each into <path>/<name>/.
set -euo pipefail
store="$STANDIN_RUN/artifacts"
mkdir -p "$store"
shopt -s nullglob
found=0
for artifact in "$store"/$ARTIFACT_PATTERN; do
  mkdir -p "$ARTIFACT_PATH/${artifact##*/}"
  cp -a "$artifact/." "$ARTIFACT_PATH/${artifact##*/}/"
  echo "Artifact ${artifact##*/} downloaded into $ARTIFACT_PATH/${artifact##*/}"
  found=1
done
((found)) || { echo "download-artifact: no artifact matches $ARTIFACT_PATTERN" >&2; exit 1; }
