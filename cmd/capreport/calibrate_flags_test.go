package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

// Bad flag values name the flag (their parsing is TestCalibrateFlags).
func TestCalibrateFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", "."}, "--prometheus: required"},
		{[]string{"calibrate", ".", "--prometheus", "http://x", "--since", "week"}, `--since: "week" is not a window`},
		{[]string{"calibrate", ".", "--prometheus", "http://x", "--quantile", "1.5"}, "--quantile: 1.5 is not in (0, 1]"},
		{[]string{"calibrate", ".", "--prometheus", "prom:9090"}, `--prometheus: "prom:9090" is not an http or https URL`},
	} {
		var out, errOut bytes.Buffer
		if code := run(tc.args, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut}); code != cmdutil.ExitError || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}
