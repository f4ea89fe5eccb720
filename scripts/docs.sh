#!/usr/bin/env bash
# make docs: DocC archives for X11Pasteboard and UniformTypes (swift-docc-plugin), as static
# websites in .build/docs/<Target> (open with any web server, or `docc preview`).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build/docs
for target in X11Pasteboard UniformTypes; do
    rm -rf ".build/docs/$target"
    swift package --allow-writing-to-directory .build/docs \
        generate-documentation --target "$target" --disable-indexing --transform-for-static-hosting \
        --output-path ".build/docs/$target"
done
echo "documentation in .build/docs/X11Pasteboard and .build/docs/UniformTypes"
