#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Extract the pieces of Debian's linux-source-6.1 that imtcp's checks and
# selftests need (checkpatch.pl and its data, the kselftest headers) into
# the directory given as $1. Needs: apt-get install linux-source-6.1.
set -eu
dest=${1:?usage: fetch-ksrc.sh DESTDIR}
tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1 || true)
if [ -z "$tarball" ]; then
	echo "fetch-ksrc: /usr/src/linux-source-6.1.tar.* not found;" >&2
	echo "fetch-ksrc: install it: apt-get install linux-source-6.1 (or: make deps)" >&2
	exit 1
fi
mkdir -p "$dest"
tar -xf "$tarball" -C "$dest" --strip-components=1 \
	--wildcards \
	'linux-source-6.1/scripts/checkpatch.pl' \
	'linux-source-6.1/scripts/spelling.txt' \
	'linux-source-6.1/scripts/const_structs.checkpatch' \
	'linux-source-6.1/tools/testing/selftests/kselftest*'
touch "$dest/.done"
