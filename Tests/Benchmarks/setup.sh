#!/bin/bash
# Installs what `make bench` needs when it is missing: Debian packages (apt-get) and a Python
# venv in .build/bench/venv with OpenCV (<5: OpenCV 5 dropped CascadeClassifier), numpy and
# pyvips from PyPI. Run from the repository's top folder. Does nothing when all is there.
set -euo pipefail

packages="imagemagick libvips-tools libjpeg-turbo-progs time python3-venv opencv-data"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "bench: installing:$missing"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi

venv=.build/bench/venv
if ! "$venv/bin/python" -c 'import cv2, numpy, pyvips' 2>/dev/null; then
  echo "bench: creating $venv (opencv-python-headless<5, numpy, pyvips from PyPI)"
  mkdir -p .build/bench
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check 'opencv-python-headless<5' numpy pyvips
fi
