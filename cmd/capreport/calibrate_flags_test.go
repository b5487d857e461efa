package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Flags parse into the options (through runF), and bad ones name the flag.
func TestCalibrateFlags(t *testing.T) {
	var got *calibrateOptions
	cmd := newCalibrateCmd(newFactory(&streams{}), func(o *calibrateOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"deploy", "--prometheus", "https://prom:9090", "--since", "36h", "--quantile", "0.95", "--timeout", "5s", "--dry-run", "--insecure-skip-tls-verify"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.path != "deploy" || got.prometheus != "https://prom:9090" || got.since != "36h" || got.quantile != 0.95 ||
		got.timeout != 5*time.Second || !got.dryRun || !got.insecure || got.step != 5*time.Minute {
		t.Fatalf("options = %+v", got)
	}
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
		if code := run(tc.args, &streams{Out: &out, ErrOut: &errOut}); code != exitError || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}
