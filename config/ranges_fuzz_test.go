package config

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// spellRanged writes v (a value in the range's unit: seconds for a
// duration) as one of the spellings the key's parser accepts, and returns
// the text with the value it denotes.
func spellRanged(name string, r Range, v float64, form uint8) (string, float64) {
	num := func(x float64) string { return strconv.FormatFloat(x, "gfe"[form%3], -1, 64) }
	switch {
	case r.Duration:
		v = math.Round(v*1000) / 1000 // whole milliseconds: exact in nanoseconds
		switch form % 3 {
		case 0:
			return strconv.FormatFloat(v, 'f', -1, 64), v
		case 1:
			return strconv.FormatFloat(v*1000, 'f', -1, 64) + "ms", v
		}
		if math.Abs(v) < 1e9 {
			return time.Duration(math.Round(v*1000) * float64(time.Millisecond)).String(), v
		}
	case name == "partitions": // a whole number, written as one
		return strconv.FormatFloat(v, 'f', -1, 64), v
	case name == string(KeyOverload) || name == string(KeyStep):
		return num(v) + "x", v
	case name == string(KeySaturatedEfficiency) && form%2 == 1:
		s := strconv.FormatFloat(v*100, 'g', -1, 64)
		f, _ := strconv.ParseFloat(s, 64)
		return s + "%", f / 100
	case name == string(KeyPodRate) || name == string(KeyDemand):
		if form%2 == 1 {
			return num(v) + "/s", v
		}
	}
	return num(v), v
}

// parseRanged reads raw through the entry point a user reaches: an
// assumption's Set (annotations and .capreport.yaml share it), the
// cluster section of .capreport.yaml, or the partitions annotation's
// parser. The value is in the range's unit.
func parseRanged(t *testing.T, name, raw string) (float64, error) {
	if name == "partitions" {
		p, err := ParsePartitions(raw)
		return float64(p), err
	}
	if key, ok := strings.CutPrefix(name, "cluster."); ok {
		c, err := Parse("f.yaml", []byte("cluster:\n  "+key+": "+strconv.Quote(raw)+"\n"))
		if err != nil {
			return 0, err
		}
		cl := c.Cluster
		switch key {
		case "syncPeriod":
			return cl.SyncPeriod.Value.Seconds(), nil
		case "tolerance":
			return cl.Tolerance.Value, nil
		case "downscaleStabilization":
			return cl.DownscaleStabilization.Value.Seconds(), nil
		case "cpuInitializationPeriod":
			return cl.CPUInitializationPeriod.Value.Seconds(), nil
		case "initialReadinessDelay":
			return cl.InitialReadinessDelay.Value.Seconds(), nil
		}
		t.Fatalf("no reader for %s", name)
	}
	var a Assumptions
	if err := a.Set(Key(name), raw, 1); err != nil {
		return 0, err
	}
	return assumptionValue(t, a, Key(name)), nil
}

func assumptionValue(t *testing.T, a Assumptions, k Key) float64 {
	switch k {
	case KeyDeadTime:
		return a.DeadTime.Value.Seconds()
	case KeyPodRate:
		return a.PodRate.Value
	case KeyLatencyTarget:
		return a.LatencyTarget.Value.Seconds()
	case KeyOverload:
		if len(a.Overload.Value) != 1 {
			t.Fatalf("one factor gave %v", a.Overload.Value)
		}
		return a.Overload.Value[0]
	case KeyDemand:
		return a.Demand.Value
	case KeyStep:
		return a.Step.Value
	case KeyMetricWindow:
		return a.MetricWindow.Value.Seconds()
	case KeySaturatedEfficiency:
		return a.SaturatedEfficiency.Value
	}
	t.Fatalf("no reader for %s", k)
	return 0
}

// FuzzRanges: for every documented range, a value inside it parses to
// itself, and one outside it (too small, too large, negative, not finite)
// is refused with an error naming the range; never a panic, never a
// non-finite value.
func FuzzRanges(f *testing.F) {
	names := make([]string, 0, len(ranges))
	for n := range ranges {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		r := ranges[n]
		for j, v := range []float64{r.Min, r.Max, (r.Min + r.Max) / 2, r.Max * 2, r.Min - 1, 0, math.Inf(1)} {
			f.Add(uint8(i), v, uint8(j))
		}
		f.Add(uint8(i), 0.0, uint8(1)) // "0ms": a zero window is in [0s, 1h]
	}
	f.Fuzz(func(t *testing.T, ki uint8, v float64, form uint8) {
		name := names[int(ki)%len(names)]
		r := ranges[name]
		raw, want := spellRanged(name, r, v, form)
		got, err := parseRanged(t, name, raw)
		finite := !math.IsNaN(want) && !math.IsInf(want, 0)
		in := finite && r.Contains(want) && (name != "partitions" || want == math.Trunc(want))
		switch {
		case err == nil && (!in || math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want))):
			t.Fatalf("%s: %q (%v) gave %v, range %s", name, raw, want, got, r)
		case err != nil && in:
			t.Fatalf("%s: %q is inside %s but was refused: %v", name, raw, r, err)
		case err != nil && finite && !strings.Contains(err.Error(), r.String()):
			t.Fatalf("%s: %q is outside %s, but the error does not name it: %v", name, raw, r, err)
		}
	})
}
