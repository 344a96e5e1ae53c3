#!/usr/bin/env bash
# The main job: build if needed, then run every op through the Python API on sample data,
# compare with NumPy, and print a speed table against NumPy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
PYTHONPATH=build/python python3 tools/demo.py
