package simulate

import (
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

func TestSimulateSizeFlags(t *testing.T) {
	def := simulateSizeOptions{pods: 10, request: "1", target: 50, podRate: 100, deadTime: "90s", metricWindow: "30s",
		overload: "10x", minReplicas: 1, maxReplicas: 100000, efficiency: 1, syncPeriod: "15s", downscaleWindow: "300s",
		cipStr: "5m", tolerance: 0.1, format: "text"}
	set := def
	set.pods, set.request, set.limit, set.overload, set.behavior, set.tolerance, set.format = 4, "250m", "500m", "3x", "b.yaml", 0.2, "json"
	cmdtest.Flags(t, newSimulateSizeCmd, func(t *testing.T, f *cmdutil.Factory, o *simulateSizeOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		o.ios = nil
	}, []cmdtest.FlagCase[simulateSizeOptions]{
		{Name: "defaults", Want: def},
		{Name: "flags", Args: []string{"--pods", "4", "--request", "250m", "--limit", "500m", "--overload", "3x",
			"--behavior", "b.yaml", "--tolerance", "0.2", "-o", "json"}, Want: set},
		{Name: "bad int", Args: []string{"--pods", "ten"}, WantErr: `invalid argument "ten" for "--pods"`},
		{Name: "argument", Args: []string{"extra"}, WantErr: `unknown command "extra"`},
	})
}

func TestSimulateTimeFlags(t *testing.T) {
	def := simulateTimeOptions{podRate: 10, threshold: 10, demand: 500, deadTime: "90s", window: "300s", step: "4x",
		minReplicas: 1, maxReplicas: 2000, syncPeriod: "15s", tolerance: 0.1, format: "text"}
	set := def
	set.podRate, set.window, set.step, set.events, set.maxReplicas = 20, "60s", "2x", true, 50
	cmdtest.Flags(t, newSimulateTimeCmd, func(t *testing.T, f *cmdutil.Factory, o *simulateTimeOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		o.ios = nil
	}, []cmdtest.FlagCase[simulateTimeOptions]{
		{Name: "defaults", Want: def},
		{Name: "flags", Args: []string{"--pod-rate", "20", "--window", "60s", "--step", "2x", "--events", "--max-replicas", "50"}, Want: set},
		{Name: "bad float", Args: []string{"--pod-rate", "fast"}, WantErr: `invalid argument "fast" for "--pod-rate"`},
	})
}
