#!/bin/sh
# If capreport ever executes this, the test sees the marker file.
touch "$(dirname "$0")/PWNED"
cat
