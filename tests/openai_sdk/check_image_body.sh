#!/usr/bin/env bash
# Integration test: a run with --image sends a body that the official openai SDK's TypeScript
# types accept, with valid PNG data URLs of the asked size (check_body.js records it on loopback).
# Usage: check_image_body.sh TOKBENCH_BINARY OUT_DIR
set -euo pipefail
BIN=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
if [[ ! -d "$HERE/node_modules/openai" || ! -d "$HERE/node_modules/typescript" ]]; then
  echo "missing openai/typescript: run npm ci --prefix tests/openai_sdk (scripts/test.sh does)" >&2
  exit 1
fi
rm -rf "$OUT"
mkdir -p "$OUT"
node "$HERE/check_body.js" "$BIN" "$OUT" 512 512 2
