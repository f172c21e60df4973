#!/usr/bin/env bash
# An artifact's files into the stand-ins' store: $STANDIN_RUN/artifacts/<name>/.
set -euo pipefail
store="$STANDIN_RUN/artifacts"
mkdir -p "$store"
[[ "$ARTIFACT_NAME" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "upload-artifact: a name it refuses: '$ARTIFACT_NAME'" >&2; exit 1; }
if [[ ! -e "$ARTIFACT_PATH" ]]; then
  case "$IF_NO_FILES_FOUND" in
    error) echo "upload-artifact: no files were found with the provided path: $ARTIFACT_PATH" >&2; exit 1 ;;
    warn) echo "upload-artifact: no files were found with the provided path: $ARTIFACT_PATH (nothing uploaded)" >&2 ;;
  esac
  exit 0
fi
# mkdir, not -p: a second artifact of one name in one run fails, as it does on GitHub (v4).
mkdir "$store/$ARTIFACT_NAME" || { echo "upload-artifact: an artifact named $ARTIFACT_NAME exists" >&2; exit 1; }
if [[ -d "$ARTIFACT_PATH" ]]; then cp -a "$ARTIFACT_PATH/." "$store/$ARTIFACT_NAME/"; else cp -a "$ARTIFACT_PATH" "$store/$ARTIFACT_NAME/"; fi
echo "Artifact $ARTIFACT_NAME uploaded from $ARTIFACT_PATH"
