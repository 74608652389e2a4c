# Copyright IBM Corp. 2018, 2026
# SPDX-License-Identifier: MPL-2.0

# chart_dir returns the directory for the chart
chart_dir() {
    echo ${BATS_TEST_DIRNAME}/../..
}
