#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder image: Node, then the course's copy of the kit, installed.
set -euo pipefail
NODE_VERSION=24.11.1   # a Node 24 LTS release; the kit runs on 20, 22, 24 and 26
KIT_REPO=https://github.com/YOUR-ORG/build-a-coding-agent.git
KIT_REF=main           # the tag or branch the class was given

apt-get update
apt-get install -y --no-install-recommends ca-certificates curl git xz-utils
curl -fsSL "https://nodejs.org/dist/v${NODE_VERSION}/node-v${NODE_VERSION}-linux-x64.tar.xz" | tar -xJ -C /usr/local --strip-components=1
git clone --quiet --branch "$KIT_REF" "$KIT_REPO" /autograder/kit
cd /autograder/kit && npm ci --no-audit --no-fund
