package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

func TestSimulateSizeJSON(t *testing.T) {
	out, stderr, code := capture("simulate", "size", "--pods", "10", "--request", "1", "--limit", "1", "--target", "50",
		"--pod-rate", "100", "--dead-time", "90s", "--overload", "10x", "--format", "json")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]any{
		"timeToCapacitySeconds": 345.0, "rounds": 3.0, "roundsBound": 3.0, "peakReplicas": 317.0,
		"neededReplicas": 100.0, "growthFactor": 2.0, "deadBand": false,
	} {
		if got[field] != want {
			t.Errorf("%s = %v, want %v", field, got[field], want)
		}
	}
	for _, field := range []string{"overshoot", "peakBacklog", "peakWaitSeconds", "drainedAtSeconds", "scaleEvents"} {
		if _, ok := got[field]; !ok {
			t.Errorf("field %s missing", field)
		}
	}
	events := got["scaleEvents"].([]any)
	if first := events[0].(map[string]any); first["t"] != 15.0 || first["from"] != 10.0 || first["to"] != 16.0 {
		t.Errorf("first scale event %v, want 10 → 16 at 15 s", first)
	}
}

func TestSimulateSizeNeverScales(t *testing.T) {
	out, _, code := capture("simulate", "size", "--pods", "4", "--request", "250m", "--target", "93", "--overload", "3x", "--format", "json")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d", code)
	}
	var got map[string]any
	_ = json.Unmarshal([]byte(out), &got)
	if got["timeToCapacitySeconds"] != nil || got["deadBand"] != true || got["statusUtilization"] != 100.0 {
		t.Errorf("93%% target: %v", got)
	}
}

func TestSimulateTimeJSON(t *testing.T) {
	out, stderr, code := capture("simulate", "time", "--pod-rate", "10", "--threshold", "10", "--dead-time", "90s",
		"--window", "300s", "--demand", "500", "--step", "4x", "--format", "json")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got["hunts"] != true || got["replicasP5"] != 8.0 || got["replicasP95"] != 2000.0 || got["neededReplicas"] != 200.0 {
		t.Errorf("the opening: %v", got)
	}
	if d := got["requiredStandingDelaySeconds"].(float64); d < 89.5 || d > 89.7 {
		t.Errorf("required delay %v, essay: 89.6 s", d)
	}
	for _, field := range []string{"standingDelaySeconds", "phi", "windowInDeadTimes", "replicasMin", "replicasMax", "replicasMean"} {
		if _, ok := got[field]; !ok {
			t.Errorf("field %s missing", field)
		}
	}
}

// Bad calculator input prints one line naming the flag and the reason and
// exits 2; nothing panics.
func TestSimulateBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"size", "--pod-rate", "-5"}, "--pod-rate"},
		{[]string{"size", "--target", "0"}, "--target"},
		{[]string{"size", "--target", "101"}, "--target"},
		{[]string{"size", "--request", "1", "--limit", "500m"}, "--limit"},
		{[]string{"size", "--request", "1 core"}, "--request"},
		{[]string{"size", "--dead-time", "90x"}, "--dead-time"},
		{[]string{"size", "--dead-time", "0s"}, "--dead-time"},
		{[]string{"size", "--overload", "ten"}, "--overload"},
		{[]string{"size", "--overload", "0.5x"}, "--overload"},
		{[]string{"size", "--efficiency", "1.5"}, "--efficiency"},
		{[]string{"size", "--format", "yaml"}, "--format"},
		{[]string{"time", "--pod-rate", "-1"}, "--pod-rate"},
		{[]string{"time", "--threshold", "0"}, "--threshold"},
		{[]string{"time", "--dead-time", "0s"}, "--dead-time"},
		{[]string{"time", "--window", "5 minutes"}, "--window"},
		{[]string{"time", "--step", "x"}, "--step"},
		{[]string{"time", "--min-replicas", "0"}, "--min-replicas"},
		{[]string{"time", "--max-replicas", "0"}, "--max-replicas"},
		{[]string{"size", "--pods", "nine"}, "--pods"},
		{[]string{"time", "--pod-rate", "0.001"}, "--demand"},
	} {
		_, stderr, code := capture(append([]string{"simulate"}, c.args...)...)
		line := strings.TrimSpace(stderr)
		if code != cmdutil.ExitError || strings.Contains(line, "\n") || !strings.Contains(line, c.flag) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %s", c.args, code, stderr, c.flag)
		}
	}
}

func FuzzSimulateFlags(f *testing.F) {
	for _, s := range []string{"10x", "250m", "90s", "-1", "1e309", "NaN", "0x10", "1.5", ""} {
		f.Add(s, s, s)
	}
	f.Fuzz(func(t *testing.T, overload, request, deadTime string) {
		// Must return an exit code, never panic; a valid run is fine too.
		code := run([]string{"simulate", "size", "--overload", overload, "--request", request,
			"--dead-time", deadTime, "--pods", "2", "--max-replicas", "50"}, &cmdutil.IOStreams{Out: discard{}, ErrOut: discard{}})
		if code != cmdutil.ExitOK && code != cmdutil.ExitError {
			t.Fatalf("exit %d", code)
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestSimulateKnobs checks the calculator knobs a manifest has: a behavior
// block (read in the HPA's own shape) slows a scale-up its policy limits,
// and minReplicas floors the count.
func TestSimulateKnobs(t *testing.T) {
	size := func(extra ...string) map[string]any {
		t.Helper()
		args := append([]string{"simulate", "size", "--pods", "10", "--overload", "10x", "-o", "json"}, extra...)
		out, stderr, code := capture(args...)
		if code != cmdutil.ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	legacy, slow := size(), size("--behavior", "testdata/behavior/slow-up.yaml")
	if first := slow["scaleEvents"].([]any)[0].(map[string]any); first["to"] != 14.0 {
		t.Errorf("first scale-up under a 4-pods-per-minute policy went to %v, want 14", first["to"])
	}
	if slow["timeToCapacitySeconds"].(float64) <= legacy["timeToCapacitySeconds"].(float64) {
		t.Errorf("a 4-pod policy reached capacity in %v s, no later than the legacy %v s", slow["timeToCapacitySeconds"], legacy["timeToCapacitySeconds"])
	}
	// minReplicas above the 100 pods a 10x overload needs: the run starts
	// at the floor and capacity is there from the start.
	floored := size("--min-replicas", "120", "--max-replicas", "200")
	if floored["peakReplicas"] != 120.0 || floored["rounds"] != 0.0 || floored["timeToCapacitySeconds"] != 0.0 {
		t.Errorf("minReplicas 120: peak %v, rounds %v, time to capacity %v; want 120, 0, 0",
			floored["peakReplicas"], floored["rounds"], floored["timeToCapacitySeconds"])
	}
}

// TestSimulateTimeEvents checks --events: one sync every 15 s for the 20
// hours after the step, and the scale events are the syncs that changed
// the count.
func TestSimulateTimeEvents(t *testing.T) {
	out, stderr, code := capture("simulate", "time", "--events", "--behavior", "testdata/behavior/down-60s.yaml", "-o", "json")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Hunts       bool `json:"hunts"`
		ScaleEvents []struct {
			T        int
			From, To int32
		} `json:"scaleEvents"`
		Syncs []struct {
			T                           int64
			Replicas, Proposal, Desired int32
		} `json:"syncs"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Syncs) != 20*3600/15+1 || got.Syncs[1].T != 15 {
		t.Fatalf("%d syncs (second at %d s), want 4801, 15 s apart", len(got.Syncs), got.Syncs[1].T)
	}
	changed := 0
	for _, s := range got.Syncs {
		if s.Desired != s.Replicas {
			changed++
		}
	}
	if changed != len(got.ScaleEvents) || changed == 0 {
		t.Errorf("%d syncs changed the count, %d scale events", changed, len(got.ScaleEvents))
	}
	text, _, _ := capture("simulate", "time", "--events")
	if !strings.Contains(text, "Sync log (4801 syncs)") || !strings.Contains(text, "Scale events after the step") {
		t.Errorf("the text output lacks the sync log:\n%.600s", text)
	}
}
