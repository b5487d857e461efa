package calibratecmd

import (
	"testing"
	"time"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

func TestCalibrateFlags(t *testing.T) {
	def := calibrateOptions{path: ".", since: "7d", step: 5 * time.Minute, timeout: time.Minute, quantile: 0.9,
		minPods: 5, minSamples: 12, render: cmdtest.DefaultRender}
	set := def
	set.path, set.prometheus, set.since, set.quantile, set.timeout, set.dryRun, set.insecure, set.caFile =
		"deploy", "https://prom:9090", "36h", 0.95, 5*time.Second, true, true, "ca.pem"
	cmdtest.Flags(t, NewCmdCalibrate, func(t *testing.T, f *cmdutil.Factory, o *calibrateOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		if o.ctx == nil || o.getenv == nil || o.now == nil || o.newSource == nil {
			t.Error("context, environment, clock or client missing")
		}
		cmdtest.ClearRender(t, &o.render)
		o.ios, o.ctx, o.getenv, o.now, o.newSource = nil, nil, nil, nil, nil
	}, []cmdtest.FlagCase[calibrateOptions]{
		{Name: "defaults", Want: def},
		{Name: "flags", Args: []string{"deploy", "--prometheus", "https://prom:9090", "--since", "36h", "--quantile", "0.95",
			"--timeout", "5s", "--dry-run", "--insecure-skip-tls-verify", "--ca-file", "ca.pem"}, Want: set},
		{Name: "bad duration", Args: []string{"--step", "5"}, WantErr: `invalid argument "5" for "--step"`},
	})
}

// The factory's clock and environment are what calibrate reads.
func TestCalibrateUsesFactory(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{}, cmdutil.BuildInfo{})
	end := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	f.Now = func() time.Time { return end }
	f.Env = func(k string) (string, bool) { return "v-" + k, true }
	var got *calibrateOptions
	cmd := NewCmdCalibrate(f, func(o *calibrateOptions) error { got = o; return nil })
	cmd.SetArgs([]string{})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.now().Equal(end) || got.getenv("X") != "v-X" {
		t.Errorf("now %v, getenv %q", got.now(), got.getenv("X"))
	}
}
