package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

// runPhiArgs runs `capreport phi args...` in-process.
func runPhiArgs(t *testing.T, args ...string) (code int, out, errOut string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(append([]string{"phi"}, args...), &cmdutil.IOStreams{Out: &o, ErrOut: &e})
	return code, o.String(), e.String()
}

func TestPhiText(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want []string // substrings of stdout
	}{
		{"default window in dead times", []string{"--w", "3.33"},
			[]string{"w = W/τ                 3.33", "Φ(w)                    0.916", "Φ_hb(w)                 0.946", "Φ asymptotic            0.891", "e = 2.718"}},
		{"short window: no closed form", []string{"--w", "0.5"},
			[]string{"Φ(w)                    0.384", "Φ_hb(w)                 n/a"}},
		{"no window", []string{"--w", "0"},
			[]string{"Φ(w)                    0.000", "Φ_hb(w)                 n/a", "Φ asymptotic            n/a"}},
		{"the default deployment", []string{"--dead-time", "90s", "--window", "300s"},
			[]string{"90 s, 5 min", "Φ(w)                    0.916", "100 s, 5 min 10 s (w_eff = 3.1)", "required standing delay 89.6 s"}},
		{"window defaults to 300 s", []string{"--dead-time", "1m30s"},
			[]string{"90 s, 5 min", "required standing delay 89.6 s"}},
		{"Corollary 3's design, bare seconds", []string{"--dead-time", "60", "--window", "2m"},
			[]string{"60 s, 2 min", "required standing delay 52.6 s"}},
		{"sampling alone", []string{"--dead-time", "90s", "--window", "0s"},
			[]string{"required standing delay 11.9 s", "Φ_hb(w)                 n/a"}},
	} {
		code, out, errOut := runPhiArgs(t, c.args...)
		if code != cmdutil.ExitOK || errOut != "" {
			t.Errorf("%s: exit %d, stderr %q", c.name, code, errOut)
			continue
		}
		for _, s := range c.want {
			if !strings.Contains(out, s) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, s, out)
			}
		}
	}
}

func TestPhiJSON(t *testing.T) {
	code, out, errOut := runPhiArgs(t, "--dead-time", "90s", "--window", "300s", "--format", "json")
	if code != cmdutil.ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	for key, want := range map[string]float64{
		"w":                            300.0 / 90,
		"phi":                          0.916,
		"phiClosedForm":                0.947,
		"phiAsymptotic":                0.891,
		"deadTimeSeconds":              90,
		"windowSeconds":                300,
		"effectiveDeadTimeSeconds":     100,
		"effectiveWindowSeconds":       310,
		"effectiveW":                   3.1,
		"phiEffective":                 0.896,
		"requiredStandingDelaySeconds": 89.6,
	} {
		v, ok := got[key].(float64)
		if !ok || math.Abs(v-want) > 0.0005*math.Max(1, math.Abs(want))+0.0005 {
			t.Errorf("%s = %v, want %v", key, got[key], want)
		}
	}

	// Below w = 1 the closed form is null, and without --dead-time the
	// deployed fields are absent.
	code, out, _ = runPhiArgs(t, "--w", "0.05", "-o", "json")
	if code != cmdutil.ExitOK {
		t.Fatalf("--w 0.05: exit %d", code)
	}
	got = nil
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	for _, key := range []string{"phiClosedForm", "phiAsymptotic"} {
		if v, present := got[key]; !present || v != nil {
			t.Errorf("%s = %v (present %v), want null", key, v, present)
		}
	}
	for _, key := range []string{"deadTimeSeconds", "windowSeconds", "requiredStandingDelaySeconds"} {
		if _, present := got[key]; present {
			t.Errorf("%s present without --dead-time", key)
		}
	}
}

func TestPhiBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // the whole stderr line after "capreport: "
	}{
		{[]string{"--w", "-1"}, `--w: "-1" must be 0 or more (a window in dead times)`},
		{[]string{"--w", "abc"}, `--w: "abc" is not a number, expected e.g. 3.33`},
		{[]string{"--w", "NaN"}, `--w: "NaN" is not a number, expected e.g. 3.33`},
		{[]string{"--w", "Inf"}, `--w: "Inf" is not a number, expected e.g. 3.33`},
		{[]string{"--dead-time", "0s"}, `--dead-time: "0s" must be positive: Φ measures the window in dead times`},
		{[]string{"--dead-time", "-5s"}, `--dead-time: "-5s" must not be negative`},
		{[]string{"--dead-time", "soon"}, `--dead-time: "soon" is not a duration, expected e.g. 90s or 5m`},
		{[]string{"--dead-time", "90s", "--window", "-1m"}, `--window: "-1m" must not be negative`},
		{[]string{"--w", "1", "--dead-time", "90s"}, `--w: cannot be combined with --dead-time: give w = W/τ, or the dead time and window`},
		{[]string{"--w", "1", "--window", "60s"}, `--window: goes with --dead-time, not --w`},
		{[]string{"--window", "60s"}, `--dead-time: needed with --window: Φ measures the window in dead times`},
		{nil, `--w: give --w (the window in dead times) or --dead-time [--window]`},
		{[]string{"--w", "1", "--format", "yaml"}, `--format: "yaml" is not one of text, json`},
	} {
		code, out, errOut := runPhiArgs(t, c.args...)
		if code != cmdutil.ExitError {
			t.Errorf("%v: exit %d, want %d", c.args, code, cmdutil.ExitError)
		}
		if out != "" {
			t.Errorf("%v: stdout %q, want nothing", c.args, out)
		}
		if want := "capreport: " + c.want + "\n"; errOut != want {
			t.Errorf("%v: stderr %q\nwant %q", c.args, errOut, want)
		}
	}
}

// The command reads the table and never bisects: the fastest of a few
// in-process runs (cobra tree included) stays far under 50 ms, where one
// bisection alone costs about 200 ms.
func TestPhiAnswersFast(t *testing.T) {
	best := time.Hour
	for range 5 {
		start := time.Now()
		if code, _, errOut := runPhiArgs(t, "--dead-time", "90s", "--window", "300s", "-o", "json"); code != cmdutil.ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		best = min(best, time.Since(start))
	}
	if best > 50*time.Millisecond {
		t.Errorf("phi took %v, budget 50 ms", best)
	}
}
